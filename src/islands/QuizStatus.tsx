/** What a quiz island shows while its questions load, or when they could not be loaded. */
export function QuizStatus({ loading, error }: { loading?: string; error?: string }) {
  if (error)
    return (
      <section className="quiz">
        <p className="error" role="alert">
          {error}
        </p>
      </section>
    );
  return (
    <section className="quiz" aria-busy="true">
      <p className="muted">{loading}</p>
    </section>
  );
}
