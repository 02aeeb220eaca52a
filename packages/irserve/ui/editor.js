// The pipeline input of one pane: completion of service and alias names, and a marker under
// the column of a syntax error.
import { syntaxErrorOf } from './checker.js';

const NAME_BEFORE_CARET = /[A-Za-z][A-Za-z0-9_-]*$/;

function textWidth(input, text) {
  const canvas = (textWidth.canvas ??= document.createElement('canvas'));
  const context = canvas.getContext('2d');
  context.font = getComputedStyle(input).font;
  return context.measureText(text).width;
}

/**
 * Wires an editor: `names()` gives the names to complete; `onChange(value, error)` is told after
 * each check. Returns `{ setError, check }` for errors the server reports, and `insert(text)`.
 */
export function createEditor(root, { names, onChange, onSubmit }) {
  const input = root.querySelector('input.pipeline');
  const marker = root.querySelector('.marker');
  const list = root.querySelector('.completions');
  let active = -1;
  let checkId = 0;

  function setError(error) {
    root.classList.toggle('invalid', Boolean(error));
    if (!error) {
      marker.hidden = true;
      marker.removeAttribute('data-column');
      return;
    }
    const style = getComputedStyle(input);
    const prefix = input.value.slice(0, Math.max(0, error.column - 1));
    const left =
      input.offsetLeft +
      parseFloat(style.paddingLeft) +
      parseFloat(style.borderLeftWidth) +
      textWidth(input, prefix) -
      input.scrollLeft;
    marker.style.left = `${left}px`;
    marker.dataset.column = String(error.column);
    marker.querySelector('.message').textContent = error.message;
    marker.hidden = false;
  }

  async function check() {
    const id = ++checkId;
    const error = await syntaxErrorOf(input.value);
    if (id !== checkId) return;
    setError(error);
    onChange?.(input.value, error);
  }

  function wordAtCaret() {
    const before = input.value.slice(0, input.selectionStart ?? input.value.length);
    const match = NAME_BEFORE_CARET.exec(before);
    return match ? { word: match[0], start: before.length - match[0].length } : undefined;
  }

  function close() {
    list.hidden = true;
    list.replaceChildren();
    active = -1;
  }

  function accept(name) {
    const at = wordAtCaret();
    if (!at) return close();
    const end = at.start + at.word.length;
    input.value = input.value.slice(0, at.start) + name + input.value.slice(end);
    const caret = at.start + name.length;
    input.setSelectionRange(caret, caret);
    close();
    void check();
  }

  function suggest() {
    const at = wordAtCaret();
    const matches = at
      ? names().filter(
          (name) => name.toLowerCase().startsWith(at.word.toLowerCase()) && name !== at.word,
        )
      : [];
    if (matches.length === 0) return close();
    list.replaceChildren(
      ...matches.slice(0, 12).map((name, index) => {
        const item = document.createElement('li');
        item.textContent = name;
        item.setAttribute('role', 'option');
        item.addEventListener('mousedown', (event) => {
          event.preventDefault();
          accept(name);
        });
        if (index === 0) item.classList.add('active');
        return item;
      }),
    );
    active = 0;
    list.style.left = `${input.offsetLeft + textWidth(input, input.value.slice(0, at.start)) - input.scrollLeft}px`;
    list.hidden = false;
  }

  function move(step) {
    const items = [...list.children];
    if (items.length === 0) return;
    items[active]?.classList.remove('active');
    active = (active + step + items.length) % items.length;
    items[active].classList.add('active');
  }

  input.addEventListener('input', () => {
    suggest();
    void check();
  });
  input.addEventListener('blur', () => setTimeout(close, 100));
  input.addEventListener('keydown', (event) => {
    if (!list.hidden && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      move(event.key === 'ArrowDown' ? 1 : -1);
    } else if (!list.hidden && (event.key === 'Tab' || event.key === 'Enter')) {
      event.preventDefault();
      accept(list.children[active].textContent);
    } else if (event.key === 'Escape') {
      close();
    } else if (event.key === 'Enter') {
      onSubmit?.();
    }
  });
  /** Puts `text` at the caret (over the selection), as if typed there. */
  function insert(text) {
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    input.setRangeText(text, start, end, 'end');
    input.focus();
    close();
    void check();
  }

  return { input, setError, check, insert };
}
