/**
 * Page-load part of the explorable figures: watches each `figure[data-figure]` and, when one nears the viewport,
 * loads src/client/figure-hydrate.ts and its figure's module. Kept tiny: it ships before any figure is visible.
 */
const hydrate = (el: HTMLElement) => void import('./figure-hydrate.ts').then((m) => m.hydrate(el));

const figures = document.querySelectorAll<HTMLElement>('figure[data-figure]');
if ('IntersectionObserver' in window) {
  const io = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        io.unobserve(e.target);
        hydrate(e.target as HTMLElement);
      }
    },
    { rootMargin: '200px 0px' },
  );
  figures.forEach((f) => io.observe(f));
} else {
  figures.forEach(hydrate);
}
