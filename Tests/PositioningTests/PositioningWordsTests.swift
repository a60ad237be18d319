import Foundation
import Testing
import GeoTestSupport
import Positioning

/// A connection change in words: the reason and the waits in seconds, the retry limit only
/// where the policy has one; one or several failed attempts.
@Test func connectionChange_description_saysTheWaitsAndTheLimit() {
    let unlimited = ReconnectPolicy()
    let failing = ConnectionChange.failing(reason: "cannot connect to 127.0.0.1:2947: Connection refused", retryingIn: .milliseconds(500))
    #expect(failing.description(under: unlimited) == "cannot connect to 127.0.0.1:2947: Connection refused; retrying in 0.5 s, backing off to 8.0 s")
    let limited = ReconnectPolicy(maximumBackoff: .seconds(2), maximumRetries: 3)
    #expect(failing.description(under: limited) == "cannot connect to 127.0.0.1:2947: Connection refused; retrying in 0.5 s, backing off to 2.0 s, up to 3 retries")
    #expect(ConnectionChange.reconnected(afterFailures: 1).description(under: limited) == "connected after 1 failed attempt")
    #expect(ConnectionChange.reconnected(afterFailures: 4).description(under: limited) == "connected after 4 failed attempts")
}

/// A reopened log's recovery in words: the points kept, and the torn ones only when there are
/// any (the damage of `positionLog_damageBeforeTheLastPoint_isRewritten_andOriginalKept`:
/// one point kept, two dropped).
@Test func positionLogRecovery_summary_countsKeptAndTornPoints() throws {
    try withTemporaryDirectory { dir in
        for name in ["whole.gpx", "holed.gpx"] {
            let log = try PositionLog(url: dir.appendingPathComponent(name))
            for i in 0..<3 { try log.append(fullFix(i)) }
            log.abandon()
        }
        let whole = try PositionLog(url: dir.appendingPathComponent("whole.gpx"))
        #expect(whole.recovery?.summary == "3 points kept")
        whole.abandon()
        let url = dir.appendingPathComponent("holed.gpx")
        var bytes = [UInt8](try Data(contentsOf: url))
        let secondPoint = try #require((0..<bytes.count).filter { bytes[$0..<min($0 + 6, bytes.count)].elementsEqual("<trkpt".utf8) }.dropFirst().first)
        bytes.replaceSubrange((secondPoint + 20)..<(secondPoint + 84), with: repeatElement(0, count: 64))
        try Data(bytes).write(to: url)
        let reopened = try PositionLog(url: url)
        #expect(reopened.recovery?.summary == "1 points kept, 2 torn points (never acknowledged) dropped")
        reopened.abandon()
    }
}
