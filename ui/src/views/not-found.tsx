/** What a route that names nothing shows: an unknown view, or an instance this node does not run. */

export function NotFoundView({ what }: { what: string }) {
  return (
    <div class="view" data-testid="not-found">
      <section class="card">
        <h1>Not found</h1>
        <p>{what}</p>
        <p>
          <a href="#/">Back to the overview</a>
        </p>
      </section>
    </div>
  );
}
