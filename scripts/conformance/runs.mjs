// runs writes a list of ids with each run of consecutive originals as
// one range, as the Go tests read it: ["m0", "m3-m9", "s1", "m12~3024"].
// An id that is not "m<digits>" stands alone.
export function runs(ids) {
  const out = [];
  let from = -1, to = -1;
  const flush = () => {
    if (from >= 0) out.push(from === to ? `m${from}` : `m${from}-m${to}`);
    from = to = -1;
  };
  for (const id of ids) {
    const m = /^m(\d+)$/.exec(id);
    if (!m) {
      flush();
      out.push(id);
      continue;
    }
    const i = Number(m[1]);
    if (from >= 0 && i === to + 1) {
      to = i;
      continue;
    }
    flush();
    from = to = i;
  }
  flush();
  return out;
}
