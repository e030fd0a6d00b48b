// The path of a request's URL, without its query: what every listener routes by. The query is never logged
// (it may carry secrets); the forwarder sends the URL on as it came.

/** The URL's path, without the query ("/" when there is no URL). */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return "/";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
