import NMEACodec

extension RouteSimulationSource {
    /// The simulation as NMEA 0183 (`geo simulate`): each fix as its GGA, GSA, RMC and VTG
    /// sentences (`NMEAEncoder`, each ending in CR LF) handed to `emit` as one string, in the
    /// source's order and pacing, until the route ends or `count` fixes were emitted.
    /// - Throws: the source's error; `NMEAError` for a fix the encoder cannot write.
    public func emitNMEA(count: Int? = nil, _ emit: (String) -> Void) async throws {
        var emitted = 0
        for try await event in events() {
            guard case .location(let location) = event else { continue }
            emit(try NMEAEncoder.sentences(for: location).joined())
            emitted += 1
            if let count, emitted >= count { break }
        }
    }
}
