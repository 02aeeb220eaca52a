/** The small corpus every back-end test indexes: ids, titles, texts and a subset label. */
export const DOCS = [
  {
    id: 'd1',
    title: 'Jet engines',
    text: 'turbine compressor thrust of jet engines',
    subset: 'odd',
  },
  {
    id: 'd2',
    title: 'Boundary layers',
    text: 'laminar boundary layer transition on a flat plate',
    subset: 'even',
  },
  {
    id: 'd3',
    title: 'Shock waves',
    text: 'supersonic shock wave reflection from a wedge',
    subset: 'odd',
  },
  {
    id: 'd4',
    title: 'Wing flutter',
    text: 'flutter of swept wings at transonic speed',
    subset: 'even',
  },
  {
    id: 'd5',
    title: 'Heat transfer',
    text: 'heat transfer in hypersonic boundary layer flow',
    subset: 'odd',
  },
  {
    id: 'd6',
    title: 'Propellers',
    text: 'propeller noise and thrust at low speed',
    subset: 'even',
  },
];

/** SQL literal (tests only: the engine itself binds every value). */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
