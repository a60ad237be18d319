import Hummingbird

/// Applies a `HostPolicy` to every request that reaches the router. (A connection's first
/// request, where a WebSocket handshake happens, is checked before that by `FirstHeadGuard`:
/// hummingbird-websocket answers any refused handshake with 400.)
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: HostPolicy
    let refusals: HTTPRefusals

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = policy.refusal(host: request.head.authority, origin: request.headers[.origin]) {
            refusals.count(refusal.kind)
            return Response(status: .init(code: refusal.status), headers: [.contentType: "text/plain; charset=utf-8", .connection: "close"],
                            body: .init(byteBuffer: ByteBuffer(string: refusal.reason + "\n")))
        }
        return try await next(request, context)
    }
}
