import GeoTestSupport
import SystemIO
import Testing

@Test func freePort_isNeverHandedOutTwice_andSkipsAPortInUse() throws {
    let ports = (0..<200).map { _ in FreePort.take() }
    #expect(Set(ports).count == ports.count, "a port was handed out twice: \(ports)")
    // Below the kernel's ephemeral range, which port 0 and outgoing connections draw from.
    #expect(ports.allSatisfy { (10_000..<32_768).contains($0) }, "\(ports)")
    // A port something listens on is passed over: hold the one after the last handed out.
    let last = FreePort.take()
    guard last + 1 < 32_768, let held = try? TCPServer(port: last + 1) else { return }
    defer { held.close() }
    #expect(FreePort.take() != held.port)
}
