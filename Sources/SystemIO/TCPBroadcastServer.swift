import Foundation
import Synchronization

/// A TCP server that sends the same bytes to every connected client (a receiver's NMEA stream,
/// as `gpsfake` serves one): a thread accepts clients; a client that cannot take a whole
/// message, or has gone, is dropped and closed.
public final class TCPBroadcastServer: Sendable {
    private let server: TCPServer
    private let clients = ClientList()

    /// The connected client sockets, shared with the accepting thread; nil once closed (a
    /// client accepted while the server closes is closed, not kept).
    private final class ClientList: Sendable {
        let sockets = Mutex<[FileDescriptor]?>([])
    }

    /// Listens on `host`:`port` (loopback by default; port 0 lets the system choose).
    /// - Throws: `SystemIOError` when the port cannot be bound (``TCPServer``).
    public init(host: String = "127.0.0.1", port: Int) throws(SystemIOError) {
        server = try TCPServer(host: host, port: port)
        let server = self.server, clients = self.clients
        Thread {
            // Ends when `close()` closes the listener.
            while let client = try? server.accept() {
                let kept = clients.sockets.withLock { list -> Bool in
                    guard list != nil else { return false }
                    list?.append(client)
                    return true
                }
                if !kept { try? client.close() }
            }
        }.start()
    }

    /// The port it listens on.
    public var port: Int { server.port }

    /// How many clients are connected.
    public var clientCount: Int { clients.sockets.withLock { $0?.count ?? 0 } }

    /// Sends `text`'s UTF-8 to every client, dropping those whose connection failed.
    public func broadcast(_ text: String) {
        let bytes = Array(text.utf8)
        clients.sockets.withLock { list in
            list?.removeAll { client in
                let sent = bytes.withUnsafeBytes { try? client.send($0) }
                if sent == bytes.count { return false }
                try? client.close()
                return true
            }
        }
    }

    /// Stops listening and closes every client.
    public func close() {
        server.close()
        clients.sockets.withLock { list in list?.forEach { try? $0.close() }; list = nil }
    }
}
