import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Positioning
import TrackFiltering

/// One source under test, ready to run: the source, how to see its running streams, how to
/// make it deliver (a push source needs a push; the others deliver by themselves), and, where
/// its peer can tell, how many connections the source still holds.
struct ContractSubject: Sendable {
    let source: any PositionSource
    let activeRuns: @Sendable () -> Int
    var deliver: @Sendable () -> Void = {}
    var heldConnections: (@Sendable () -> Int)?
}

/// One source kind under the contract test (GRDB's same body against every backend).
/// `withSubject` runs the test body with a fresh subject, for as long as the peer the source
/// needs (a gpsd) lives; it returns without running the body when that tool or the shared data
/// is missing outside CI (under CI that throws instead).
struct ContractCase: Sendable, CustomTestStringConvertible {
    typealias Body = (ContractSubject) async throws -> Void
    let name: String
    let withSubject: @Sendable (_ body: Body) async throws -> Void
    var testDescription: String { name }

    init(name: String, scoped withSubject: @escaping @Sendable (_ body: Body) async throws -> Void) {
        self.name = name
        self.withSubject = withSubject
    }

    /// A source that needs no peer with a lifetime: `make` builds it (nil: data missing).
    init(name: String, make: @escaping @Sendable () throws -> ContractSubject?) {
        self.init(name: name) { body in if let subject = try make() { try await body(subject) } }
    }

    static let all: [ContractCase] = [
        ContractCase(name: "custom") {
            let s = CustomPositionSource()
            return ContractSubject(source: s, activeRuns: { s.activeRuns }, deliver: { s.yield(fix(t: 0)) })
        },
        ContractCase(name: "route simulation") {
            let s = try RouteSimulationSource(polyline: [fix(t: 0).coordinate, fix(north: 5000, t: 0).coordinate],
                                              movementSpeed: .metersPerSecond(10), startDate: fix(t: 0).timestamp,
                                              clock: SourceClock(ManualClock()))
            return ContractSubject(source: s, activeRuns: { s.activeRuns })
        },
        ContractCase(name: "location replay") {
            let s = try LocationReplaySource(locations: (0..<100).map { fix(north: Double($0) * 10, t: Double($0)) },
                                             clock: SourceClock(ManualClock()))
            return ContractSubject(source: s, activeRuns: { s.activeRuns })
        },
        ContractCase(name: "NMEA file, paced") {
            // Paced in real time on a clock that never moves: one fix, then the run waits.
            guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return nil }
            let s = NMEASource(.file(log.path), pacing: .realTime, clock: SourceClock(ManualClock()))
            return ContractSubject(source: s, activeRuns: { s.activeRuns })
        },
        ContractCase(name: "NMEA over TCP") {
            // The receiver sends a whole capture to each client, then holds the connection.
            guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return nil }
            let server = try NMEATestServer(payload: Array(try Data(contentsOf: log)))
            let s = NMEASource(.tcp(host: "127.0.0.1", port: server.port))
            return ContractSubject(source: s, activeRuns: { s.activeRuns }, heldConnections: { server.heldConnections })
        },
        ContractCase(name: "gpsd", scoped: { body in
            // A real gpsd replaying a capture through gpsfake again and again, one sentence every
            // 50 ms, for as long as the test body runs.
            guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return }
            _ = try await GPSFake.withReplay(log: log, cycle: 0.05, repeating: true) { gpsd in
                let s = GPSDSource(port: gpsd.port, reconnect: ReconnectPolicy(initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(400)))
                try await body(ContractSubject(source: s, activeRuns: { s.activeRuns }))
            }
        }),
        ContractCase(name: "session logging source (over custom)", scoped: { body in
            // The session's state and log live in a directory removed when the test body ends.
            try await withTemporaryDirectory("contract") { dir in
                let session = try BackgroundActivitySession(id: "contract", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
                let s = CustomPositionSource()
                try await body(ContractSubject(source: session.loggingSource(s), activeRuns: { withExtendedLifetime(session) { s.activeRuns } },
                                               deliver: { s.yield(fix(t: 0)) }))
            }
        }),
    ]
}

@Test(.onOwnThread, arguments: ContractCase.all)
func source_deliversAFix_andLeavingTheLoopEndsTheRun(_ c: ContractCase) async throws {
    try await c.withSubject { subject in
        #expect(subject.activeRuns() == 0, "no run before events() is called")
        let gotFix = Mutex(false)
        let source = subject.source
        let consumer = Task {
            for try await event in source.events() {
                if case .location = event { gotFix.withLock { $0 = true }; return true }
            }
            return false
        }
        // A push source needs its run to exist before the push; the others deliver on their own.
        #expect(await eventually { subject.activeRuns() == 1 || gotFix.withLock { $0 } })
        subject.deliver()
        let delivered = try await consumer.value
        #expect(delivered, "\(c.name) delivered no fix")
        #expect(await eventually { subject.activeRuns() == 0 }, "\(c.name) kept running after its consumer left")
        if let held = subject.heldConnections {
            #expect(await eventually { held() == 0 }, "\(c.name) kept its connection after its consumer left")
        }
    }
}

@Test(.onOwnThread, arguments: ContractCase.all)
func source_cancellingTheConsumerEndsTheRun(_ c: ContractCase) async throws {
    try await c.withSubject { subject in
        let source = subject.source
        let consumer = Task { for try await _ in source.events() {} }
        #expect(await eventually { subject.activeRuns() == 1 })
        if let held = subject.heldConnections { #expect(await eventually { held() == 1 }, "\(c.name) connected") }
        consumer.cancel()
        _ = try? await consumer.value
        #expect(await eventually { subject.activeRuns() == 0 }, "\(c.name) kept running after cancellation")
        if let held = subject.heldConnections {
            #expect(await eventually { held() == 0 }, "\(c.name) kept its connection after cancellation")
        }
    }
}

@Test(.onOwnThread, arguments: ContractCase.all)
func source_runsAreIndependent(_ c: ContractCase) async throws {
    try await c.withSubject { subject in
        let source = subject.source
        let secondFixes = Mutex(0)
        let first = Task { for try await _ in source.events() {} }
        let second = Task {
            for try await event in source.events() { if case .location = event { secondFixes.withLock { $0 += 1 } } }
        }
        #expect(await eventually { subject.activeRuns() == 2 })
        if let held = subject.heldConnections { #expect(await eventually { held() == 2 }, "one connection per run") }
        first.cancel()
        #expect(await eventually { subject.activeRuns() == 1 }, "ending one run must not end the other")
        if let held = subject.heldConnections { #expect(await eventually { held() == 1 }, "the other run keeps its connection") }
        subject.deliver()
        // Names the runs still active: this failed once (gpsd, after 120 s, under the timed
        // suites; not seen again in 15 runs alone, 6 beside busy loops and 3 in the timed suites).
        #expect(await eventually { secondFixes.withLock { $0 } >= 1 }, "the remaining run still delivers (\(subject.activeRuns()) runs active)")
        second.cancel()
        #expect(await eventually { subject.activeRuns() == 0 })
        if let held = subject.heldConnections { #expect(await eventually { held() == 0 }) }
    }
}
