import Synchronization

/// What a `LocalServer` refused or cut before a route saw the request, counted by reason for its
/// `/metrics`: every hostile client gets a protocol-level error or a closed connection, and a
/// count (issue 35's "Bad input"). One per server, shared by its connections.
public final class HTTPRefusals: Sendable {
    /// Why a request was refused or a connection closed.
    public enum Reason: Int, CaseIterable, Sendable {
        /// A request NIO's HTTP decoder refuses: not HTTP/1.x as RFC 9112 writes it (400).
        case malformed
        /// No `Host`, two, or one this server does not answer for (400, 403; `HostPolicy`).
        case host
        /// A page of another site (403; `HostPolicy`).
        case origin
        /// A request line over `RequestLimits.maximumRequestLine` (414).
        case requestLine
        /// A head over `RequestLimits.maximumHead` (431).
        case head
        /// A first head not whole within `RequestLimits.headTimeout` (408: slowloris).
        case headTimeout
        /// A body over the routes' bound (413).
        case body
        /// A body not whole within `RequestLimits.bodyTimeout` (408).
        case bodyTimeout
        /// A connection idle past `RequestLimits.idleTimeout`, closed.
        case idle
        /// A client that took none of its answers for `RequestLimits.idleTimeout`, closed (`SendBacklog`).
        case unread
        /// A connection over the server's bound of open connections (`OpenConnections`),
        /// closed as soon as it was accepted.
        case connections

        /// The Prometheus label value.
        public var label: String {
            switch self {
            case .malformed: "malformed"
            case .host: "host"
            case .origin: "origin"
            case .requestLine: "request_line"
            case .head: "head"
            case .headTimeout: "head_timeout"
            case .body: "body"
            case .bodyTimeout: "body_timeout"
            case .idle: "idle"
            case .unread: "unread"
            case .connections: "connections"
            }
        }
    }

    private let counts = Mutex([Int](repeating: 0, count: Reason.allCases.count))

    public init() {}

    func count(_ reason: Reason) {
        counts.withLock { $0[reason.rawValue] += 1 }
    }

    /// How many of each reason so far, every reason listed.
    public var totals: [(reason: Reason, count: Int)] {
        let counts = counts.withLock { $0 }
        return Reason.allCases.map { ($0, counts[$0.rawValue]) }
    }

    /// The counts as a Prometheus counter `name` labelled by `reason`, with its HELP and TYPE lines.
    public func prometheus(name: String) -> String {
        "# HELP \(name) Requests refused and connections closed before a route saw them, by reason.\n# TYPE \(name) counter\n"
            + totals.map { "\(name){reason=\"\($0.reason.label)\"} \($0.count)\n" }.joined()
    }
}
