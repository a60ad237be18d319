import Foundation
import Platform

/// Outgoing TCP connections.
public enum TCPClient {
    /// Connects to `host:port` (any address family `getaddrinfo` offers, in its order), with a
    /// socket that is close-on-exec.
    /// - Parameters:
    ///   - timeout: the send timeout (`SO_SNDTIMEO`), which also bounds `connect(2)` on Linux.
    ///   - localAddress: a numeric address of this host to connect from (curl's
    ///     `--interface`), as one of many clients does (Linux answers for all of 127.0.0.0/8);
    ///     nil lets the system choose.
    /// - Throws: `SystemIOError` `.notFound` when the name does not resolve,
    ///   `.connectionFailed` when nothing accepts there or `localAddress` is not one to
    ///   connect from.
    public static func connect(host: String, port: Int, timeout: Duration = .seconds(5),
                               from localAddress: String? = nil) throws(SystemIOError) -> FileDescriptor {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = socketType
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SystemIOError(.notFound, "cannot resolve \(host): \(String(cString: gai_strerror(status)))", path: "\(host):\(port)")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let ai = entry {
            let fd = closeOnExec(socket(ai.pointee.ai_family, ai.pointee.ai_socktype | socketCloseOnExec, ai.pointee.ai_protocol))
            if fd >= 0 {
                let seconds = timeout.components.seconds
                var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                if localAddress.map({ bind(fd, to: $0, family: ai.pointee.ai_family) }) ?? true,
                   systemConnect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 {
                    return FileDescriptor(rawValue: fd)
                }
                lastError = errno
                close(fd)
            } else {
                lastError = errno
            }
            entry = ai.pointee.ai_next
        }
        throw SystemIOError("cannot connect to", errno: lastError, path: "\(host):\(port)")
    }

    /// Binds `fd`, a socket of `family`, to `address` (numeric) and a port the system picks;
    /// false, with `errno` set, when it cannot.
    private static func bind(_ fd: Int32, to address: String, family: Int32) -> Bool {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = socketType
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address, "0", &hints, &list) == 0, let local = list else {
            errno = EADDRNOTAVAIL
            return false
        }
        defer { freeaddrinfo(list) }
        return systemBind(fd, local.pointee.ai_addr, local.pointee.ai_addrlen) == 0
    }
}

/// A listening TCP socket on an IPv4 address; `accept()` hands out connected clients, every
/// socket close-on-exec. Copies share one socket: `close()` on any of them closes it for all.
public struct TCPServer: Sendable {
    /// The listening socket (closed by `close()`, not by its caller).
    public var descriptor: FileDescriptor { listener.descriptor }
    /// The port it listens on (the one the system chose when asked for port 0).
    public let port: Int
    private let listener: Listener

    /// The socket and the `accept()` calls running on it. `close()` releases the descriptor's
    /// number only once no call is in `accept(2)` or about to enter it: closed under such a
    /// thread, the number could be taken by a socket or file opened meanwhile (the process's
    /// lowest free number), and the thread would accept another server's clients on it.
    private final class Listener: @unchecked Sendable {
        let descriptor: FileDescriptor
        // Guarded by `condition`.
        let condition = NSCondition()
        var closed = false, accepting = 0
        init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }
    }

    /// Binds and listens (with `SO_REUSEADDR`).
    /// - Parameters:
    ///   - host: a dotted IPv4 address; the loopback by default.
    ///   - port: 0 lets the system pick a free port (see `port`).
    /// - Throws: `SystemIOError` `.busy` when the port is taken, `.invalidArgument` for a bad address.
    public init(host: String = "127.0.0.1", port: Int, backlog: Int32 = 16) throws(SystemIOError) {
        let address = "\(host):\(port)"
        let fd = closeOnExec(socket(AF_INET, socketType | socketCloseOnExec, 0))
        guard fd >= 0 else { throw .last("cannot create a socket for", path: address) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else {
            _ = systemClose(fd)
            throw SystemIOError(.invalidArgument, "not an IPv4 address:", path: host)
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let error = SystemIOError.last("cannot listen on", path: address)
            _ = systemClose(fd)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = Listener(FileDescriptor(rawValue: fd))
        self.port = Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Waits for the next client (blocking the calling thread; run it on a dedicated thread).
    /// - Throws: `SystemIOError` once the server is closed (also for a client that came while
    ///   it was being closed: that client is closed).
    public func accept() throws(SystemIOError) -> FileDescriptor {
        let l = listener
        func afterClose() -> SystemIOError { SystemIOError(.invalidArgument, "accept after close on", path: "port \(port)") }
        l.condition.lock()
        guard !l.closed else {
            l.condition.unlock()
            throw afterClose()
        }
        l.accepting += 1
        l.condition.unlock()
        defer {
            l.condition.lock()
            l.accepting -= 1
            l.condition.broadcast()
            l.condition.unlock()
        }
        while true {
            let client = systemAccept4(l.descriptor.rawValue, nil, nil, socketCloseOnExec)
            if client >= 0 {
                l.condition.lock()
                let closed = l.closed
                l.condition.unlock()
                guard !closed else {
                    _ = systemClose(client)
                    throw afterClose()
                }
                return FileDescriptor(rawValue: client)
            }
            let e = errno
            if e != EINTR && e != ECONNABORTED { throw SystemIOError("accept failed on", errno: e, path: "port \(port)") }
        }
    }

    /// Stops listening and closes the socket once every `accept()` in progress has returned
    /// with an error (`shutdown(2)` wakes a blocked one on Linux); later calls throw. Calling
    /// it again does nothing.
    public func close() {
        let l = listener
        l.condition.lock()
        guard !l.closed else {
            l.condition.unlock()
            return
        }
        l.closed = true
        shutdown(l.descriptor.rawValue, Int32(SHUT_RDWR))
        // Bounded: where `shutdown` does not wake `accept(2)` (not Linux), the socket is closed
        // after 2 s regardless, as before.
        let deadline = Date(timeIntervalSinceNow: 2)
        while l.accepting > 0, l.condition.wait(until: deadline) {}
        l.condition.unlock()
        try? l.descriptor.close()
    }
}

#if canImport(Glibc)
private let socketType = Int32(SOCK_STREAM.rawValue)
private let socketCloseOnExec = Int32(SOCK_CLOEXEC.rawValue)
#else
private let socketType = SOCK_STREAM
/// Darwin has no `SOCK_CLOEXEC`: ``closeOnExec(_:)`` marks each socket right after it is made.
private let socketCloseOnExec: Int32 = 0
#endif

/// Marks `fd` close-on-exec where the socket calls cannot (Darwin); returns it.
private func closeOnExec(_ fd: Int32) -> Int32 {
    #if !os(Linux)
    if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    #endif
    return fd
}

// `connect(2)` under a name `TCPClient.connect` does not shadow.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

// `bind(2)` under a name `TCPClient.bind` does not shadow.
private func systemBind(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    bind(fd, address, length)
}

// `close(2)` under a name `TCPServer.close` does not shadow.
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }

#if os(Linux)
/// `accept4(2)`, which Glibc's Swift module hides behind `_GNU_SOURCE`; it makes the client
/// socket close-on-exec atomically, where `accept` + `fcntl` would leave a window for a `fork`.
@_silgen_name("accept4")
private func systemAccept4(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?,
                           _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32) -> Int32
#else
/// Darwin has no `accept4`: `accept`, then close-on-exec.
private func systemAccept4(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?,
                           _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32) -> Int32 {
    closeOnExec(accept(fd, address, length))
}
#endif
