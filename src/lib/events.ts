/**
 * What the UI tells the rest of the app, as DOM CustomEvents on `window`. Islands and page
 * scripts emit; the progress store (src/store) listens and records. Keeping the quiz ignorant of
 * storage keeps its bundle small and lets it work when storage is unavailable.
 */

/** A question answered in any quiz (card, practice, review, lab debrief). */
export interface AnswerDetail {
  questionId: string;
  cardId: string;
  topic: string;
  /** Option keys picked ("a", "b", ...), or the number typed, as given. */
  choice: string[] | number;
  correct: boolean;
  /** Milliseconds from showing the question to answering. */
  timeMs: number;
  /** Where it was answered. */
  context: 'card' | 'practice' | 'review' | 'retake' | 'lab';
  /** Epoch ms. */
  at: number;
}

/** A quiz of several questions finished. */
export interface QuizDoneDetail {
  context: AnswerDetail['context'];
  /** The practice seed or curated quiz id, or the card id. */
  quizId: string;
  total: number;
  correct: number;
  durationMs: number;
  /** The score per topic (absent in events from before it was recorded). */
  topics?: { topic: string; correct: number; total: number }[];
  at: number;
}

/** A card read to its end. */
export interface CardReadDetail {
  cardId: string;
  topic: string;
  at: number;
}

/** A card saved for revision (`saved: true`) or unsaved, from its save button. */
export interface SaveToggledDetail {
  cardId: string;
  /** The state the learner chose (not a toggle, so a repeated event changes nothing). */
  saved: boolean;
  at: number;
}

/** A lab completed: its steps ran to the end. */
export interface LabDoneDetail {
  labId: string;
  /** Whether the lab's checks passed. */
  passed: boolean;
  durationMs: number;
  at: number;
}

/** "Undo last answer": the answer to `questionId` given at `answeredAt` no longer counts. */
export interface AnswerUndoneDetail {
  questionId: string;
  /** The `at` of the answer being undone (as its 'saturate:answer' said). */
  answeredAt: number;
  /** Epoch ms of the undo. */
  at: number;
}

export interface SaturateEvents {
  'saturate:answer': AnswerDetail;
  'saturate:quiz-done': QuizDoneDetail;
  'saturate:card-read': CardReadDetail;
  'saturate:save-toggled': SaveToggledDetail;
  'saturate:lab-done': LabDoneDetail;
  'saturate:answer-undone': AnswerUndoneDetail;
}

/** Every app event type, in one list (the progress store records them all). */
export const APP_EVENT_TYPES = [
  'saturate:answer',
  'saturate:card-read',
  'saturate:quiz-done',
  'saturate:lab-done',
  'saturate:save-toggled',
  'saturate:answer-undone',
] as const satisfies readonly (keyof SaturateEvents)[];

/** One app event as heard on `window`. */
export type AppEvent = { [K in keyof SaturateEvents]: { type: K; detail: SaturateEvents[K] } }[keyof SaturateEvents];

/** Emits an app event; a no-op outside the browser. */
export function emit<K extends keyof SaturateEvents>(type: K, detail: SaturateEvents[K]): void {
  if (typeof window !== 'undefined') window.dispatchEvent(new CustomEvent(type, { detail }));
}

/** Subscribes to an app event; returns the unsubscribe function. */
export function on<K extends keyof SaturateEvents>(type: K, handler: (detail: SaturateEvents[K]) => void): () => void {
  const listener = (e: Event) => handler((e as CustomEvent<SaturateEvents[K]>).detail);
  window.addEventListener(type, listener);
  return () => window.removeEventListener(type, listener);
}
