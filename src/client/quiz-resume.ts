/**
 * The quiz islands' way to the quizzes kept in progress (src/store/quiz-saves.ts) and to a quiz's last
 * finished score (src/store/quiz-last.ts): islands never import the store themselves (ARCHITECTURE.md). Small:
 * idb-keyval, already on every page for the progress boot's reads; zod is loaded only to read a saved record.
 */
export { clearQuizSave, listQuizSaves, readQuizSave, saveQuiz, type QuizSave } from '../store/quiz-saves.ts';
export { lastQuizDoneOf } from '../store/quiz-last.ts';
