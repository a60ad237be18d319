import Foundation
import Synchronization
import Testing
import GeoTestSupport
@testable import Positioning

@Test func reconnectPolicy_backsOffExponentiallyUpToTheCap() {
    let policy = ReconnectPolicy(initialBackoff: .milliseconds(250), maximumBackoff: .seconds(8))
    let waits = (1...9).map { policy.backoff(afterFailures: $0) }
    let expected: [Duration] = [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4),
                                .seconds(8), .seconds(8), .seconds(8), .seconds(8)]
    #expect(waits == expected)
}

/// A refused connection is reported once (not once per attempt) and the source gives up with a
/// clear error after its retries; before, gpsd:// retried silently for ever.
@Test(.onOwnThread) func gpsdSource_refusedConnection_reportsOnceAndGivesUpAfterTheRetries() async throws {
    let changes = Mutex<[ConnectionChange]>([])
    let policy = ReconnectPolicy(initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(4), maximumRetries: 3)
    let source = GPSDSource(port: FreePort.take(), reconnect: policy) { change in changes.withLock { $0.append(change) } }
    var lost = 0
    let error = await #expect(throws: PositioningError.self) {
        for try await event in source.events() where event == .lost { lost += 1 }
    }
    #expect(error?.code == .sourceUnavailable)
    #expect(error?.message.contains("4 attempts in a row") == true, "\(String(describing: error))")
    #expect(lost == 1, "lost is reported once")
    let recorded = changes.withLock { $0 }
    #expect(recorded.count == 1, "\(recorded)")
    guard case .failing(let reason, let wait)? = recorded.first else { Issue.record("no failure reported"); return }
    #expect(reason.contains("refused"), "\(reason)")
    #expect(wait == .milliseconds(1))
}

/// The same for NMEA over TCP, with no retries: the first failure is the error.
@Test func nmeaSource_tcpWithoutRetries_failsAtTheFirstRefusal() async throws {
    let source = NMEASource(.tcp(host: "127.0.0.1", port: FreePort.take()), reconnect: ReconnectPolicy(maximumRetries: 0))
    let error = await #expect(throws: PositioningError.self) {
        for try await _ in source.events() {}
    }
    #expect(error?.code == .sourceUnavailable)
}

/// A connection made after failures is reported once, as a reconnection.
@Test func connectionAttempts_reportTheReconnectionThatEndsARunOfFailures() async throws {
    let changes = Mutex<[ConnectionChange]>([])
    var attempts = ConnectionAttempts(ReconnectPolicy(initialBackoff: .milliseconds(1)), name: "test") { change in
        changes.withLock { $0.append(change) }
    }
    attempts.connected()
    try await attempts.failed("refused", clock: .continuous)
    try await attempts.failed("refused", clock: .continuous)
    attempts.connected()
    attempts.connected()
    #expect(changes.withLock { $0 } == [.failing(reason: "refused", retryingIn: .milliseconds(1)), .reconnected(afterFailures: 2)])
}
