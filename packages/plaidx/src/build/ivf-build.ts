/** The passage IVF of a built index: for each centroid, the passages using it, ascending. */
export function buildPidIvf(
  codes: Int32Array,
  doclens: Int32Array,
  numCentroids: number,
): { ivf: Int32Array; lengths: Int32Array } {
  const lengths = new Int32Array(numCentroids);
  const lastPid = new Int32Array(numCentroids).fill(-1);
  const visit = (fn: (centroid: number, pid: number) => void) => {
    lastPid.fill(-1);
    let e = 0;
    for (let pid = 0; pid < doclens.length; pid++) {
      for (const end = e + doclens[pid]!; e < end; e++) {
        const c = codes[e]!;
        if (lastPid[c] === pid) continue;
        lastPid[c] = pid;
        fn(c, pid);
      }
    }
  };
  visit((c) => lengths[c]!++);
  const next = new Int32Array(numCentroids);
  for (let c = 1; c < numCentroids; c++) next[c] = next[c - 1]! + lengths[c - 1]!;
  const ivf = new Int32Array(
    numCentroids === 0 ? 0 : next[numCentroids - 1]! + lengths[numCentroids - 1]!,
  );
  visit((c, pid) => (ivf[next[c]!++] = pid));
  return { ivf, lengths };
}
