/// What a server lets one client cost it before the request reaches a route: bounded head
/// sizes and bounded waits, so that a client with a 100 KB URL, a slow trickle of header bytes
/// (slowloris) or a silent socket cannot hold a connection or its memory for ever.
public struct RequestLimits: Sendable, Equatable {
    /// The longest request line (method, target, version), bytes; longer gets 414 URI Too Long
    /// (RFC 9110 §15.5.15). 8 KiB, as nginx's `large_client_header_buffers`.
    public var maximumRequestLine = 8 * 1024
    /// The longest request head (request line and header fields), bytes; longer gets 431 Request
    /// Header Fields Too Large (RFC 6585 §5).
    public var maximumHead = 32 * 1024
    /// How long a new connection may take to send its first request head; slower gets 408
    /// Request Timeout (RFC 9110 §15.5.9) and is closed.
    public var headTimeout: Duration = .seconds(10)
    /// How long a connection may sit between requests (or trickle a later head) before it is
    /// closed.
    public var idleTimeout: Duration = .seconds(30)
    /// How long the body of a request for `EventLoopRoutes` may take to arrive after its head;
    /// slower gets 408 and is closed (a body trickled byte by byte: slowloris after the head).
    public var bodyTimeout: Duration = .seconds(10)
    /// A WebSocket peer that answers no ping for this long is dropped.
    public var pingPeriod: Duration = .seconds(30)
    /// How long, on SIGINT or SIGTERM, open connections get to end (a WebSocket peer to answer
    /// the close frame) before they are cut and the server returns.
    public var shutdownDeadline: Duration = .seconds(1)

    public init() {}
}
