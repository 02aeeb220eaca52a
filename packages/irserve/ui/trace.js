// The `explain` trace of a pipeline run as a picture: one bar per stage, its length the stage's
// time, its label what the stage took in and passed on, a badge when its cache answered.

const SVG = 'http://www.w3.org/2000/svg';
const ROW = 26;
const LABEL = 190;
const WIDTH = 560;
const COLORS = { search: '#3b82f6', rerank: '#a855f7', merge: '#f59e0b', expand: '#10b981' };

function el(name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Replaces `container`'s content with the picture of `explain` (the envelope's `explain`). */
export function drawTrace(container, explain, requestId) {
  container.replaceChildren();
  if (!explain) return;
  const header = document.createElement('div');
  header.className = 'trace-header';
  header.textContent = `plan ${explain.plan} · pipeline cache ${explain.pipeline_cache}${requestId ? ` · request ${requestId}` : ''}`;
  container.append(header);
  const stages = explain.stages ?? [];
  if (stages.length === 0) {
    const note = document.createElement('div');
    note.className = 'trace-note';
    note.textContent = 'answered from the pipeline cache: no stage ran';
    container.append(note);
    return;
  }
  const longest = Math.max(...stages.map((stage) => stage.ms), 0.001);
  const barSpace = WIDTH - LABEL - 150;
  const svg = el('svg', {
    width: WIDTH,
    height: stages.length * ROW + 8,
    class: 'trace',
    role: 'img',
    'aria-label': 'pipeline stages',
  });
  stages.forEach((stage, index) => {
    const y = index * ROW + 4;
    const width = Math.max(2, (stage.ms / longest) * barSpace);
    const group = el('g', { class: `stage stage-${stage.role}` });
    group.append(
      el('text', { x: 0, y: y + 16, class: 'stage-name' }, `${stage.stage} (${stage.role})`),
      el('rect', {
        x: LABEL,
        y: y + 3,
        width,
        height: ROW - 8,
        rx: 3,
        fill: COLORS[stage.role] ?? '#64748b',
      }),
      el(
        'text',
        { x: LABEL + width + 6, y: y + 16, class: 'stage-flow' },
        `${stage.ms.toFixed(1)} ms · ${stage.input} → ${stage.output}${stage.cached ? ' · cache hit' : ''}`,
      ),
      el(
        'title',
        {},
        `${stage.service} on "${stage.query}": ${stage.input} in, ${stage.output} out, ${stage.ms} ms${stage.cached ? ', from its cache' : ''}`,
      ),
    );
    svg.append(group);
  });
  container.append(svg);
}
