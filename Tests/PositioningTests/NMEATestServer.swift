import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on a free loopback port, standing in for an NMEA-over-TCP receiver: it sends
/// `payload` to every client as it connects and then holds the connection until the client
/// closes it, counting the connections it holds — so a test can see a source release its
/// socket. One thread polls the listener and the clients; `stop()` (or deinit) ends it.
final class NMEATestServer: Sendable {
    let port: Int
    private let held = Atomic(0)
    private let stopping = Atomic(false)
    private let exited = DispatchSemaphore(value: 0)

    /// Starts listening.
    /// - Throws: `POSIXError` when no loopback socket can be had.
    init(payload: [UInt8]) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, listen(listener, 16) == 0 else {
            let e = errno
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread { [self] in serve(listener, payload) }.start()
    }

    /// The client connections the server holds open (clients that have not closed theirs).
    var heldConnections: Int { held.load(ordering: .relaxed) }

    /// Closes every connection and the listener, and waits for the thread to end.
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        exited.wait()
    }

    deinit { stop() }

    private func serve(_ listener: Int32, _ payload: [UInt8]) {
        var clients: [Int32] = []
        defer {
            clients.forEach { _ = close($0) }
            close(listener)
            held.store(0, ordering: .relaxed)
            exited.signal()
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.load(ordering: .relaxed) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + clients.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 20) > 0 else { continue }
            // A client that is readable has sent something or closed: drain it, drop it at end of stream.
            var closed: Set<Int32> = []
            for p in fds.dropFirst() where p.revents != 0 {
                if buffer.withUnsafeMutableBytes({ read(p.fd, $0.baseAddress, $0.count) }) <= 0 { closed.insert(p.fd) }
            }
            for fd in closed { close(fd) }
            clients.removeAll { closed.contains($0) }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let client = accept(listener, nil, nil)
                if client >= 0 {
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC) // not inherited by gpsd children
                    var sent = 0
                    while sent < payload.count {
                        let n = payload[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        if n <= 0 { break }
                        sent += n
                    }
                    clients.append(client)
                }
            }
            held.store(clients.count, ordering: .relaxed)
        }
    }
}
