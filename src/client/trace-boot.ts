/**
 * The trace page before a file is opened: the picker, the drop zone and the sample button. The worker and the
 * renderer load on the first file (a lazy import), so the page costs almost no script until then.
 */
type Job = { files: File[] } | { sampleUrl: string };

/** Wires the page's controls. */
export function bootTracePage(): void {
  const input = document.querySelector<HTMLInputElement>('[data-trace-input]');
  const drop = document.querySelector<HTMLElement>('[data-trace-drop]');
  const sample = document.querySelector<HTMLButtonElement>('[data-trace-sample]');
  if (!input || !drop || !sample) return;
  const start = (job: Job) => void import('./trace-page.ts').then((m) => m.readTraces(job));
  input.addEventListener('change', () => {
    if (input.files && input.files.length > 0) start({ files: [...input.files] });
  });
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length > 0) start({ files });
  });
  sample.addEventListener('click', () => start({ sampleUrl: sample.dataset['url']! }));
}
