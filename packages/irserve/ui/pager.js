// Paging through a ranked list: the page size is fixed, the list as long as the limit asked.

export const PAGE_SIZE = 10;

/** The number of pages `total` results fill (at least 1). */
export const pageCount = (total) => Math.max(1, Math.ceil(total / PAGE_SIZE));

/** The results of page `page` (from 1) of `ranked`, page clamped to the pages there are. */
export function pageOf(ranked, page) {
  const clamped = Math.min(Math.max(1, page), pageCount(ranked.length));
  return ranked.slice((clamped - 1) * PAGE_SIZE, clamped * PAGE_SIZE);
}

function button(label, disabled, onClick) {
  const node = document.createElement('button');
  node.type = 'button';
  node.textContent = label;
  node.disabled = disabled;
  node.addEventListener('click', onClick);
  return node;
}

/**
 * Draws "‹ ranks 11–20 of 50 ›" into `container` for page `page` of `total` results;
 * `onPage(n)` is called with the page a button asks for. Empty when everything fits one page.
 */
export function drawPager(container, { page, total, onPage }) {
  container.replaceChildren();
  const pages = pageCount(total);
  if (pages <= 1) return;
  const first = (page - 1) * PAGE_SIZE + 1;
  const last = Math.min(total, page * PAGE_SIZE);
  const label = document.createElement('span');
  label.className = 'pager-label';
  label.textContent = `ranks ${first}–${last} of ${total} · page ${page} of ${pages}`;
  container.append(
    button('‹ prev', page <= 1, () => onPage(page - 1)),
    label,
    button('next ›', page >= pages, () => onPage(page + 1)),
  );
}
