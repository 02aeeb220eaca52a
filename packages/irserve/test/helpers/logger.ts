import { pino } from 'pino';

/** A silent logger for tests. */
export const quietLogger = () => pino({ level: 'silent' });
