import Foundation
import GPXCodec
import Testing
import GeoBase
import GeoCore
import GeoTestSupport
import Positioning

/// Feeds `fixes` through a manager the session is attached to and waits until they are logged.
private func logThroughManager(_ session: BackgroundActivitySession, _ fixes: [Location]) async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered) // log exactly the fixes fed
    try session.attach(to: manager)
    #expect(await manager.start())
    #expect(await eventually { source.activeRuns == 1 })
    let before = session.log.pointsWritten
    for f in fixes { source.yield(f) }
    #expect(await eventually { session.log.pointsWritten == before + fixes.count })
    await manager.stop()
}

/// Moving fixes (20 m apart, 20 m/s), so stationary detection never pauses delivery.
private func moving(_ range: Range<Int>) -> [Location] {
    range.map { fix(north: Double($0) * 20, t: Double($0), speed: 20) }
}

@Test func session_rejoinsAfterRestart_inTheSameFile_asANewSegment() async throws {
    try await withTemporaryDirectory { dir in
        let states = dir.appendingPathComponent("state"), logs = dir.appendingPathComponent("logs")
        let start = fix(t: 0).timestamp
        var first: BackgroundActivitySession? = try BackgroundActivitySession(id: "ride", stateDirectory: states, logDirectory: logs,
                                                                              start: start, configurationName: "fitness")
        let logURL = try #require(first?.log.url)
        #expect(first?.isRejoined == false)
        #expect(first?.state.configurationName == "fitness")
        if let first { try await logThroughManager(first, moving(0..<3)) }
        // The process exits meaning to come back: the session is released without invalidate().
        first?.leaveForRestart()
        first = nil
        #expect(FileManager.default.fileExists(atPath: BackgroundActivitySession.stateURL(id: "ride", stateDirectory: states).path))

        let second = try BackgroundActivitySession(id: "ride", stateDirectory: states, logDirectory: logs,
                                                   start: fix(t: 1000).timestamp)
        #expect(second.isRejoined)
        #expect(second.log.url.standardizedFileURL.path == logURL.standardizedFileURL.path)
        #expect(second.state.start == start)
        #expect(second.state.configurationName == "fitness")
        let recovery = try #require(second.log.recovery)
        #expect(recovery.pointsKept == 3 && recovery.pointsDropped == 0 && recovery.damage == nil, "released, not crashed: nothing to repair")
        try await logThroughManager(second, moving(3..<5))
        try second.invalidate()

        let back = try PositionLog.read(url: logURL)
        #expect(back.locations == moving(0..<5))
        #expect(back.segments == 2)
        #expect(back.damage == nil)
        #expect(try await xmllintAccepts(logURL))
        #expect(!FileManager.default.fileExists(atPath: BackgroundActivitySession.stateURL(id: "ride", stateDirectory: states).path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: logs.path) == [logURL.lastPathComponent])
    }
}

/// A process killed mid-write (power loss, or a kill between two pages of one write) leaves a
/// torn point where the closing tags were; rejoining repairs the log and says what it dropped.
@Test func session_rejoin_repairsATornFinalWrite_andReportsWhatWasLost() async throws {
    try await withTemporaryDirectory { dir in
        var first: BackgroundActivitySession? = try BackgroundActivitySession(id: "torn", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
        let logURL = try #require(first?.log.url)
        if let first { try await logThroughManager(first, moving(0..<3)) }
        first?.leaveForRestart()
        first = nil
        let complete = try Data(contentsOf: logURL)
        let closingTags = Data("    </trkseg>\n  </trk>\n</gpx>\n".utf8)
        try #require(complete.suffix(closingTags.count) == closingTags)
        try (complete.dropLast(closingTags.count) + Data("      <trkpt lat=\"48.1\" lon=\"11.5\">\n        <ti".utf8)).write(to: logURL)

        let second = try BackgroundActivitySession(id: "torn", stateDirectory: dir, logDirectory: dir, start: fix(t: 1000).timestamp)
        #expect(second.isRejoined)
        let recovery = try #require(second.log.recovery)
        #expect(recovery.pointsKept == 3)
        #expect(recovery.pointsDropped == 1)
        #expect(recovery.damage?.code == .truncated)
        #expect(try await xmllintAccepts(logURL), "repaired before the first new fix")
        try await logThroughManager(second, moving(3..<5))
        try second.invalidate()
        let back = try PositionLog.read(url: logURL)
        #expect(back.locations == moving(0..<5))
        #expect(back.segments == 2)
    }
}

// Issue 33, item 8 (seed 001): releasing the last reference invalidates, as in Core Location.
@Test func session_releasingTheLastReference_invalidatesIt() async throws {
    try await withTemporaryDirectory { dir in
        var session: BackgroundActivitySession? = try BackgroundActivitySession(id: "local", stateDirectory: dir, logDirectory: dir,
                                                                                start: fix(t: 0).timestamp)
        let logURL = try #require(session?.log.url)
        if let session { try await logThroughManager(session, moving(0..<2)) }
        #expect(FileManager.default.fileExists(atPath: BackgroundActivitySession.stateURL(id: "local", stateDirectory: dir).path))
        session = nil
        #expect(!FileManager.default.fileExists(atPath: BackgroundActivitySession.stateURL(id: "local", stateDirectory: dir).path),
                "released: ended, its state file removed")
        #expect(try await xmllintAccepts(logURL))
        let next = try BackgroundActivitySession(id: "local", stateDirectory: dir, logDirectory: dir, start: fix(t: 3600).timestamp)
        #expect(!next.isRejoined, "a new session, not a rejoin")
        try next.invalidate()
        #expect(try PositionLog.read(url: logURL).locations == moving(0..<2))
    }
}

@Test func session_invalidate_endsIt_andTheSameIDStartsAfresh() async throws {
    try await withTemporaryDirectory { dir in
        let session = try BackgroundActivitySession(id: "walk", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
        try await logThroughManager(session, moving(0..<2))
        try session.invalidate()
        try session.invalidate() // idempotent
        #expect(session.isInvalidated)
        #expect(session.log.isClosed)
        let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock())
        let error = #expect(throws: PositioningError.self) { try session.attach(to: manager) }
        #expect(error?.code == .sessionInvalid)
        #expect(try await xmllintAccepts(session.log.url))

        let next = try BackgroundActivitySession(id: "walk", stateDirectory: dir, logDirectory: dir, start: fix(t: 3600).timestamp)
        #expect(!next.isRejoined)
        #expect(next.log.url != session.log.url)
        try next.invalidate()
        #expect(try PositionLog.read(url: session.log.url).locations == moving(0..<2))
    }
}

@Test func session_loggingSource_logsEveryRawFix_andSplitsAtLoss() async throws {
    try await withTemporaryDirectory { dir in
        let session = try BackgroundActivitySession(id: "raw", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
        let source = CustomPositionSource()
        let logged = session.loggingSource(source)
        #expect(logged.name == source.name)
        // Stationary fixes the manager would pause on are logged too: this is the raw feed.
        let still = (0..<3).map { fix(t: Double($0)) }
        let consumer = Task {
            var seen = 0
            for try await event in logged.events() {
                if case .location = event { seen += 1 }
                if seen == 5 { break }
            }
            return seen
        }
        #expect(await eventually { source.activeRuns == 1 })
        for f in still { source.yield(f) }
        source.reportLost()
        for f in moving(3..<5) { source.yield(f) }
        #expect(try await consumer.value == 5)
        #expect(await eventually { source.activeRuns == 0 })
        try session.invalidate()
        let back = try PositionLog.read(url: session.log.url)
        #expect(back.locations == still + moving(3..<5))
        #expect(back.segments == 2)
        #expect(session.lastLoggingError == nil)
    }
}

@Test func session_unreadableState_isSessionInvalid() throws {
    try withTemporaryDirectory { dir in
        try Data("{ not json".utf8).write(to: BackgroundActivitySession.stateURL(id: "bad", stateDirectory: dir))
        let error = #expect(throws: PositioningError.self) {
            try BackgroundActivitySession(id: "bad", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
        }
        #expect(error?.code == .sessionInvalid)
    }
}

@Test func session_secondLiveObjectForTheSameID_isRefused() throws {
    try withTemporaryDirectory { dir in
        let first = try BackgroundActivitySession(id: "twice", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
        let error = #expect(throws: PositioningError.self) {
            try BackgroundActivitySession(id: "twice", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
        }
        #expect(error?.code == .io)
        try first.invalidate()
    }
}

/// A crash inside `invalidate()` leaves the state marked `invalidated`: the next process
/// starts afresh instead of rejoining.
@Test func session_stateMarkedInvalidated_startsANewSession() throws {
    try withTemporaryDirectory { dir in
        let old = dir.appendingPathComponent("old.gpx")
        let json = #"{"id":"cut","start":0,"logPath":"\#(old.path)","invalidated":true}"#
        try Data(json.utf8).write(to: BackgroundActivitySession.stateURL(id: "cut", stateDirectory: dir))
        let session = try BackgroundActivitySession(id: "cut", stateDirectory: dir, logDirectory: dir, start: fix(t: 0).timestamp)
        #expect(!session.isRejoined)
        #expect(session.log.url.lastPathComponent == PositionLog.fileName(sessionID: "cut", start: fix(t: 0).timestamp))
        #expect(!FileManager.default.fileExists(atPath: old.path))
        // The new state replaced the old one: a restart now rejoins the new session.
        let logURL = session.log.url
        session.leaveForRestart()
        session.log.abandon()
        let rejoined = try BackgroundActivitySession(id: "cut", stateDirectory: dir, logDirectory: dir, start: fix(t: 99).timestamp)
        #expect(rejoined.isRejoined)
        #expect(rejoined.log.url.standardizedFileURL.path == logURL.standardizedFileURL.path)
        try rejoined.invalidate()
    }
}

/// A state file edited to point `logPath` outside the log directory (or at another file in
/// it) is refused when the session is rejoined, and the file it names is left untouched.
@Test func session_tamperedLogPath_isSessionInvalid_andTheFileItNamesIsUntouched() throws {
    try withTemporaryDirectory { dir in
        let logs = dir.appendingPathComponent("logs"), outside = dir.appendingPathComponent("victim.gpx")
        let victim = Data("not a log, must survive\n".utf8)
        try victim.write(to: outside)
        let start = fix(t: 0).timestamp
        let session = try BackgroundActivitySession(id: "ride", stateDirectory: dir, logDirectory: logs, start: start)
        session.leaveForRestart()
        session.log.abandon()
        let stateURL = BackgroundActivitySession.stateURL(id: "ride", stateDirectory: dir)
        let own = session.state.logPath
        for tampered in [outside.path, logs.path + "/../victim.gpx", logs.appendingPathComponent("other.gpx").path] {
            var state = session.state
            state.logPath = tampered
            try JSONEncoder().encode(state).write(to: stateURL)
            let error = #expect(throws: PositioningError.self, "logPath \(tampered)") {
                try BackgroundActivitySession(id: "ride", stateDirectory: dir, logDirectory: logs, start: start)
            }
            #expect(error?.code == .sessionInvalid)
            #expect(error?.message.contains(tampered) == true, "the error names the path: \(String(describing: error))")
        }
        #expect(try Data(contentsOf: outside) == victim)
        #expect(!FileManager.default.fileExists(atPath: logs.appendingPathComponent("other.gpx").path))
        // The untampered state still rejoins.
        var state = session.state
        state.logPath = own
        try JSONEncoder().encode(state).write(to: stateURL)
        let rejoined = try BackgroundActivitySession(id: "ride", stateDirectory: dir, logDirectory: logs, start: start)
        #expect(rejoined.isRejoined)
        try rejoined.invalidate()
    }
}
