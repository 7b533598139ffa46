// The inspector's server: the token from the page's URL goes with every
// request (header) and the WebSocket (query).

const token = new URLSearchParams(location.search).get("token") ?? "";

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function check(res: Response): Promise<Response> {
  if (res.ok) return res;
  let msg = await res.text();
  try {
    const j = JSON.parse(msg) as { error?: string };
    if (j.error) msg = j.error;
  } catch {
    // plain text
  }
  throw new ApiError(msg.trim() || `HTTP ${res.status}`, res.status);
}

export async function get<T>(path: string): Promise<T> {
  const res = await check(await fetch(path, { headers: { "x-zot-token": token } }));
  return (await res.json()) as T;
}

export async function getText(path: string): Promise<string> {
  const res = await check(await fetch(path, { headers: { "x-zot-token": token } }));
  return res.text();
}

export async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await check(
    await fetch(path, {
      method: "POST",
      headers: { "x-zot-token": token, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  return (await res.json()) as T;
}

export function socket(): WebSocket {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  return new WebSocket(`${proto}://${location.host}/ws?token=${encodeURIComponent(token)}`);
}
