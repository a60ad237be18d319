import Foundation
import Testing
import SystemIO

/// Reads from `client` until `count` bytes have come or the peer closed.
private func read(_ client: FileDescriptor, count: Int) throws -> [UInt8] {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    while received.count < count {
        let n = try buffer.withUnsafeMutableBytes { try client.read(into: $0) }
        if n == 0 { break }
        received += buffer[0..<n]
    }
    return received
}

/// Two clients get every broadcast byte for byte; closing the server ends their streams.
@Test func broadcastServer_sendsTheSameBytesToEveryClient_closeEndsThem() throws {
    let server = try TCPBroadcastServer(port: 0)
    let clients = try (0..<2).map { _ in try TCPClient.connect(host: "127.0.0.1", port: server.port) }
    defer { clients.forEach { try? $0.close() } }
    // The accepting thread registers the clients; wait (bounded) until it has.
    for _ in 0..<5000 where server.clientCount < 2 { usleep(1000) }
    try #require(server.clientCount == 2)
    let sentence = "$GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*67\r\n"
    server.broadcast(sentence)
    server.broadcast(sentence)
    for client in clients {
        #expect(try read(client, count: 2 * sentence.utf8.count) == Array((sentence + sentence).utf8))
    }
    server.close()
    #expect(server.clientCount == 0)
    for client in clients { #expect(try read(client, count: 1).isEmpty, "end of stream once closed") }
}
