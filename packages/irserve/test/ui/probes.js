// Measurements the playground test takes inside the page (added with page.addInitScript).
window.irserveProbes = {
  /** Where the error marker's caret is drawn, and where column `n` of the input starts. */
  markerGeometry(paneId) {
    const root = document.getElementById(paneId);
    const input = root.querySelector('input.pipeline');
    const caret = root.querySelector('.marker .caret');
    const column = Number(root.querySelector('.marker').dataset.column);
    const style = getComputedStyle(input);
    const probe = document.createElement('span');
    probe.style.font = style.font;
    probe.style.whiteSpace = 'pre';
    probe.textContent = input.value.slice(0, column - 1);
    document.body.append(probe);
    const columnX =
      input.getBoundingClientRect().left +
      parseFloat(style.paddingLeft) +
      parseFloat(style.borderLeftWidth) +
      probe.getBoundingClientRect().width;
    probe.remove();
    const box = caret.getBoundingClientRect();
    return { column, caretCenter: box.left + box.width / 2, columnX, charWidth: box.width };
  },

  /** The x of the column with the most red pixels in a PNG (base64). */
  async reddestColumn(base64) {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    let best = -1;
    let bestCount = 0;
    for (let x = 0; x < image.width; x++) {
      let count = 0;
      for (let y = 0; y < image.height; y++) {
        const i = (y * image.width + x) * 4;
        if (data[i] > 170 && data[i + 1] < 120 && data[i + 2] < 120) count++;
      }
      if (count > bestCount) [best, bestCount] = [x, count];
    }
    return best;
  },
};
