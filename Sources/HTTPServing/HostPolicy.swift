public import GeoBase

/// Which `Host` and `Origin` header values a server on this machine answers: the defence against
/// DNS rebinding (a page's own DNS name rebound to 127.0.0.1 reaches the server with that name in
/// `Host`) and cross-site WebSocket hijacking (a page on another site opens `ws://127.0.0.1:…`;
/// its browser sends that site's `Origin`, RFC 6455 §4.1 item 8 and §10.2).
///
/// Rules:
/// - `Host` (RFC 9110 §7.2) must name a loopback address (`localhost`, `127.0.0.0/8`, `[::1]`), a
///   host the user passed (a bind address or the host of an allowed origin), or, when the user
///   bound a wildcard address (`0.0.0.0`, `::`), any IP literal: rebinding needs a DNS name.
/// - `Origin`, when a request carries one (browsers send it on every WebSocket handshake and on
///   cross-origin requests), must be the server's own origin as the request names it
///   (`http://` + its `Host`) or an origin the user allowed. `null` (sandboxed frames, files) is
///   refused. A request without `Origin` comes from a program, not a page, and passes.
public struct HostPolicy: Sendable, Equatable {
    /// Host names (lowercased, IPv6 without brackets) that `Host` may name besides loopback.
    public private(set) var hosts: Set<String>
    /// Origins (`scheme://host[:port]`, lowercased) allowed besides the server's own.
    public private(set) var origins: Set<String>
    /// Whether the user bound a wildcard address, so that any IP literal may be named.
    public private(set) var acceptsIPLiterals: Bool
    /// Whether pages of every origin may use the server (`*` among the allowed origins): a
    /// server of public data, such as tiles. `Host` is still checked.
    public private(set) var acceptsAnyOrigin = false

    /// - Parameters:
    ///   - bindAddresses: the addresses the server listens on (`--host`).
    ///   - allowedOrigins: origins whose pages may use the server (`--allow-origin`), as
    ///     `http://name:port`; their hosts become allowed `Host` names too. `*` allows all.
    ///   - hostNames: further names `Host` may give (`--host-name`): the DNS name that devices
    ///     and a reverse proxy reach a public server by. Pages from those names are still only
    ///     served their own origin.
    public init(bindAddresses: [String] = [], allowedOrigins: [String] = [], hostNames: [String] = []) throws(HTTPServingError) {
        var hosts = Set(hostNames.map { Self.bare($0.lowercased()) }), origins = Set<String>(), wildcard = false
        for address in bindAddresses {
            let name = Self.bare(address.lowercased())
            if name == "0.0.0.0" || name == "::" { wildcard = true } else { hosts.insert(name) }
        }
        for origin in allowedOrigins where origin != "*" {
            let lowered = origin.lowercased()
            guard let parsed = Self.origin(lowered) else {
                throw HTTPServingError(.invalidOrigin, "not an origin (scheme://host[:port]): \(origin)")
            }
            origins.insert(lowered)
            hosts.insert(parsed.host)
        }
        self.hosts = hosts
        self.origins = origins
        self.acceptsIPLiterals = wildcard
        self.acceptsAnyOrigin = allowedOrigins.contains("*")
    }

    /// Whether a `Host` header value (`name[:port]`, `[v6][:port]`) is one this server answers.
    public func permits(host value: String) -> Bool {
        if Self.isLoopbackAuthority(value) { return true }
        guard let authority = Self.authority(value.lowercased()) else { return false }
        if Self.isLoopback(authority.host) || hosts.contains(authority.host) { return true }
        return acceptsIPLiterals && (Self.ipv4Octets(authority.host) != nil || authority.host.contains(":"))
    }

    /// Whether a request with this `Origin` header, sent to `host` (its `Host` header), comes from
    /// a page this server trusts: its own, or one the user allowed.
    public func permits(origin value: String, host: String) -> Bool {
        let origin = value.lowercased()
        if acceptsAnyOrigin || origins.contains(origin) { return true }
        guard let parsed = Self.origin(origin), parsed.scheme == "http" || parsed.scheme == "https" else { return false }
        // Same origin: the authority the page was loaded from is the one this request names.
        return parsed.authority == host.lowercased() && permits(host: host)
    }

    /// An HTTP status, a sentence and the header to blame.
    public typealias Refusal = (status: Int, reason: String, kind: HTTPRefusals.Reason)

    /// Why a request with these `Host` field values and this `Origin` is refused, as an HTTP status,
    /// a sentence and the header to blame; nil when it is served. 400 without a `Host`, with more
    /// than one, or with one that is not `host[:port]` (RFC 9112 §3.2); 403 for a host or page
    /// this server does not answer. Whitespace around a value is not part of it (RFC 9110 §5.5).
    public func refusal(hosts: some Collection<String>, origin: String?) -> Refusal? {
        guard hosts.count < 2 else { return (400, "more than one Host header", .host) }
        return refusal(host: hosts.first, origin: origin)
    }

    /// `refusal(hosts:origin:)` for a request with at most one `Host` field.
    public func refusal(host: String?, origin: String?) -> Refusal? {
        guard let value = host else { return (400, "no Host header", .host) }
        let host = Self.trimmingWhitespace(value)
        guard Self.isLoopbackAuthority(host) || Self.authority(host.lowercased()) != nil else {
            return (400, "not a host[:port]: \(host)", .host)
        }
        guard permits(host: host) else { return (403, "this server does not answer for the host \(host)", .host) }
        if let origin, !permits(origin: Self.trimmingWhitespace(origin), host: host) {
            return (403, "pages from \(origin) may not use this server", .origin)
        }
        return nil
    }

    /// `value` without leading and trailing spaces, tabs and carriage returns (RFC 9110 §5.5's
    /// whitespace, and the CR of a line a raw head was split at by LF); a copy only when it has some.
    static func trimmingWhitespace(_ value: String) -> String {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard let first = value.utf8.first, let last = value.utf8.last, blank(first) || blank(last) else { return value }
        let bytes = value.utf8.drop(while: blank)
        return String(decoding: bytes[..<(bytes.lastIndex { !blank($0) }.map { bytes.index(after: $0) } ?? bytes.startIndex)], as: UTF8.self)
    }

    /// `host[:port]` split, IPv6 brackets removed; nil when it is not an authority.
    static func authority(_ text: String) -> (host: String, port: Int?)? {
        guard !text.isEmpty, !text.contains(where: { $0 == "/" || $0 == "@" || $0 == " " || $0 == "?" || $0 == "#" }) else { return nil }
        var host = Substring(text), port: Int?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()), (0...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard let p = Int(text[text.index(after: colon)...]), (0...65535).contains(p) else { return nil }
            host = text[..<colon]
            port = p
        }
        guard !host.isEmpty else { return nil }
        return (String(host), port)
    }

    /// `scheme://authority` parsed; nil for anything else (a path, `null`).
    static func origin(_ text: String) -> (scheme: String, authority: String, host: String)? {
        guard let separator = text.firstRange(of: "://") else { return nil }
        let scheme = String(text[..<separator.lowerBound]), authority = String(text[separator.upperBound...])
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }),
              let parsed = Self.authority(authority) else { return nil }
        return (scheme, authority, parsed.host)
    }

    /// `[::1]` → `::1`; other names unchanged.
    static func bare(_ name: String) -> String {
        name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
    }

    /// `localhost`, an address in 127.0.0.0/8 (RFC 1122 §3.2.1.3) or `::1` (RFC 4291 §2.5.3).
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "localhost." || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        return ipv4Octets(host)?.first == 127
    }

    /// Whether `value` is `127.d.d.d[:port]` or `localhost[:port]`, read from its bytes with no
    /// allocation: the `Host` of nearly every request to a loopback server, answered without the
    /// general path's lowercased copies (that path took 3 % of `geo serve`'s CPU time under wrk,
    /// `perf`). Only says yes where `authority` and `isLoopback` would; anything else, such as
    /// `[::1]` or `LOCALHOST`, goes the general way.
    static func isLoopbackAuthority(_ value: String) -> Bool {
        var host = value.utf8[...]
        if let colon = host.lastIndex(of: UInt8(ascii: ":")) {
            let port = host[host.index(after: colon)...]
            guard (1...5).contains(port.count), port.allSatisfy({ (0x30...0x39).contains($0) }),
                  port.reduce(0, { $0 * 10 + Int($1 - 0x30) }) <= 65535 else { return false }
            host = host[..<colon]
        }
        if host.elementsEqual("localhost".utf8) { return true }
        var octets = 0, octet = 0, digits = 0, first = -1
        for byte in host {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                if octets == 0 { first = octet }
                octets += 1; octet = 0; digits = 0
            } else {
                guard (0x30...0x39).contains(byte), digits < 3 else { return false }
                octet = octet * 10 + Int(byte - 0x30); digits += 1
                guard octet <= 255 else { return false }
            }
        }
        return octets == 3 && digits > 0 && first == 127
    }

    /// The four octets of a dotted-quad IPv4 literal.
    static func ipv4Octets(_ host: String) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            octets.append(value)
        }
        return octets
    }
}
