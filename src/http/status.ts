// HTTP status lines uWS writes (it takes the whole line, reason phrase included).
const STATUS: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 204: '204 No Content', 206: '206 Partial Content', 304: '304 Not Modified',
  400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed',
  413: '413 Payload Too Large', 414: '414 URI Too Long', 416: '416 Range Not Satisfiable', 429: '429 Too Many Requests', 431: '431 Request Header Fields Too Large',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};
export const statusLine = (s: number) => STATUS[s] ?? String(s);
