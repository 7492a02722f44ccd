/**
 * What the home page says about a quiz in progress. Pure.
 * @example resumeLabel({ title: 'Practice', answers: [1], questionIds: [1, 2] }) // 'Resume Practice: 1/2'
 */
export function resumeLabel(save: {
  title: string;
  answers: readonly unknown[];
  questionIds: readonly unknown[];
}): string {
  return `Resume ${save.title}: ${save.answers.length}/${save.questionIds.length}`;
}
