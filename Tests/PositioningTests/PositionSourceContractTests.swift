import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Positioning

/// One source under the contract test: how to make it, how to see its running streams, and
/// how to make it deliver (a push source needs a push; the others deliver by themselves).
struct ContractCase: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () throws -> (source: any PositionSource, activeRuns: @Sendable () -> Int, deliver: @Sendable () -> Void)
    var testDescription: String { name }

    static let all: [ContractCase] = [
        ContractCase(name: "custom") {
            let s = CustomPositionSource()
            return (s, { s.activeRuns }, { s.yield(fix(t: 0)) })
        },
        ContractCase(name: "route simulation") {
            let s = try RouteSimulationSource(polyline: [fix(t: 0).coordinate, fix(north: 5000, t: 0).coordinate],
                                              movementSpeed: .metersPerSecond(10), startDate: fix(t: 0).timestamp,
                                              clock: SourceClock(ManualClock()))
            return (s, { s.activeRuns }, {})
        },
        ContractCase(name: "location replay") {
            let s = try LocationReplaySource(locations: (0..<100).map { fix(north: Double($0) * 10, t: Double($0)) },
                                        clock: SourceClock(ManualClock()))
            return (s, { s.activeRuns }, {})
        },
        ContractCase(name: "session logging source (over custom)") {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("PositioningTests-contract-\(UUID().uuidString)")
            let session = try BackgroundActivitySession(id: "contract", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
            let s = CustomPositionSource()
            return (session.loggingSource(s), { withExtendedLifetime(session) { s.activeRuns } }, { s.yield(fix(t: 0)) })
        },
    ]
}

@Test(arguments: ContractCase.all)
func source_deliversAFix_andLeavingTheLoopEndsTheRun(_ c: ContractCase) async throws {
    let (source, activeRuns, deliver) = try c.make()
    #expect(activeRuns() == 0, "no run before events() is called")
    let gotFix = Mutex(false)
    let consumer = Task {
        for try await event in source.events() {
            if case .location = event { gotFix.withLock { $0 = true }; return true }
        }
        return false
    }
    // A push source needs its run to exist before the push; the others deliver on their own.
    #expect(await eventually { activeRuns() == 1 || gotFix.withLock { $0 } })
    deliver()
    #expect(try await consumer.value, "\(c.name) delivered no fix")
    #expect(await eventually { activeRuns() == 0 }, "\(c.name) kept running after its consumer left")
}

@Test(arguments: ContractCase.all)
func source_cancellingTheConsumerEndsTheRun(_ c: ContractCase) async throws {
    let (source, activeRuns, _) = try c.make()
    let consumer = Task { for try await _ in source.events() {} }
    #expect(await eventually { activeRuns() == 1 })
    consumer.cancel()
    _ = try? await consumer.value
    #expect(await eventually { activeRuns() == 0 }, "\(c.name) kept running after cancellation")
}

@Test(arguments: ContractCase.all)
func source_runsAreIndependent(_ c: ContractCase) async throws {
    let (source, activeRuns, deliver) = try c.make()
    let secondFixes = Mutex(0)
    let first = Task { for try await _ in source.events() {} }
    let second = Task {
        for try await event in source.events() { if case .location = event { secondFixes.withLock { $0 += 1 } } }
    }
    #expect(await eventually { activeRuns() == 2 })
    first.cancel()
    #expect(await eventually { activeRuns() == 1 }, "ending one run must not end the other")
    deliver()
    #expect(await eventually { secondFixes.withLock { $0 } >= 1 }, "the remaining run still delivers")
    second.cancel()
    #expect(await eventually { activeRuns() == 0 })
}
