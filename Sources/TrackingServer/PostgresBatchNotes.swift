import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// What one committed batch tells the other instances on one database (PostgreSQL
/// `NOTIFY tracking_batches`, one per batch, sent with the batch's commit): the committing
/// instance, the earliest receive time of the batch (ms since 1970) and its devices as a JSON
/// array — or `*` when the list would pass 7,000 bytes (a notification holds at most 8,000:
/// PostgreSQL 15 documentation, NOTIFY), in which case the receiver reads every latest position
/// received since that time.
struct BatchNote: Sendable, Equatable {
    var instance: String
    var receivedAt: Int64
    /// Nil: many devices (`*`).
    var devices: [String]?

    static let maximumDeviceBytes = 7_000

    init(instance: String, receivedAt: Int64, devices: [String]?) {
        self.instance = instance
        self.receivedAt = receivedAt
        self.devices = devices
    }

    init(instance: String, rows: [StoredFix]) {
        self.init(instance: instance, receivedAt: rows.map(\.receivedAt).min() ?? 0, naming: Set(rows.map(\.device)))
    }

    /// A note naming `names`, sorted, or all devices (`*`) when they pass `maximumDeviceBytes`.
    private init(instance: String, receivedAt: Int64, naming names: Set<String>) {
        let sorted = names.sorted()
        let bytes = sorted.reduce(0) { $0 + $1.utf8.count + 3 }
        self.init(instance: instance, receivedAt: receivedAt, devices: bytes <= Self.maximumDeviceBytes ? sorted : nil)
    }

    /// `INSTANCE RECEIVED_AT ["a","b"]` or `INSTANCE RECEIVED_AT *`.
    var text: String {
        let list = devices.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) } ?? "*"
        return "\(instance) \(receivedAt) \(list)"
    }

    /// One note for both (the instance is this one's): the earlier receive time, and the
    /// devices of both — `*` when either names all or their union passes the notification's room.
    func merged(with other: BatchNote) -> BatchNote {
        let earlier = min(receivedAt, other.receivedAt)
        guard let mine = devices, let theirs = other.devices else { return BatchNote(instance: instance, receivedAt: earlier, devices: nil) }
        return BatchNote(instance: instance, receivedAt: earlier, naming: Set(mine).union(theirs))
    }

    /// Parses `text`; nil for anything else.
    init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, let receivedAt = Int64(parts[1]) else { return nil }
        if parts[2] == "*" {
            self.init(instance: String(parts[0]), receivedAt: receivedAt, devices: nil)
        } else {
            guard let names = try? JSONDecoder().decode([String].self, from: Data(parts[2].utf8)) else { return nil }
            self.init(instance: String(parts[0]), receivedAt: receivedAt, devices: names)
        }
    }
}

/// The fence events one instance stored (`PostgresPositionStore.add(events:)`), told to the
/// others on the batches' channel with the events' commit, so that their `/live` followers get
/// them too: `INSTANCE events [{event}, …]`, each event as `FenceEvent`'s `Codable` form, in
/// notes of at most `BatchNote.maximumDeviceBytes` of events each.
struct EventNote: Sendable, Equatable {
    let instance: String
    let events: [FenceEvent]
    /// The notification's payload.
    let text: String

    static let marker = "events"

    /// Parses `text`; nil for anything else (a `BatchNote`).
    init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, parts[1] == Self.marker,
              let events = try? JSONDecoder().decode([FenceEvent].self, from: Data(parts[2].utf8)) else { return nil }
        (instance, self.events, self.text) = (String(parts[0]), events, text)
    }

    init(instance: String, events: [FenceEvent]) {
        self.init(instance: instance, events: events, encoded: events.compactMap { try? JSONEncoder().encode($0) })
    }

    /// `encoded`: each of `events` encoded (`notes` measures them so, and encodes each once).
    private init(instance: String, events: [FenceEvent], encoded: [Data]) {
        (self.instance, self.events) = (instance, events)
        text = "\(instance) \(Self.marker) [" + encoded.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",") + "]"
    }

    /// `events` in as few notes as fit; an event whose own text passes the room (a fence or
    /// device name of thousands of bytes) is in none, and reaches only this instance's followers.
    static func notes(instance: String, events: [FenceEvent]) -> [EventNote] {
        var notes: [EventNote] = [], part: [(event: FenceEvent, json: Data)] = [], bytes = 0
        func close() {
            if !part.isEmpty { notes.append(EventNote(instance: instance, events: part.map(\.event), encoded: part.map(\.json))) }
            part = []
            bytes = 0
        }
        for event in events {
            guard let json = try? JSONEncoder().encode(event), json.count <= BatchNote.maximumDeviceBytes else { continue }
            if bytes + json.count + 1 > BatchNote.maximumDeviceBytes { close() }
            part.append((event, json))
            bytes += json.count + 1
        }
        close()
        return notes
    }
}

extension PostgresPositionStore {
    static let batchChannel = "tracking_batches"

    /// How far before the moment its LISTEN connection was lost an instance reads the latest
    /// positions and the stored events again once it listens anew, ms: a batch received before
    /// that moment may commit after it, as late as the store's 5 s bound on a statement.
    static let replayMargin: Int64 = 5_000

    /// Until cancelled: on each batch another instance commits (`BatchNote`), reads the latest
    /// positions of its devices and hands them to `body`, and hands it the fence events another
    /// instance stored (`EventNote`). A lost connection is opened again after 1 s; once it
    /// listens again, the latest positions received and the events stored since `replayMargin`
    /// before the loss go to `body` too, so what was committed meanwhile is not missed
    /// (`LiveFanOut` passes on only positions that move a device forwards; `HeardEvents` lets
    /// each event through once, whether heard in a note, read again, or both).
    public func followOtherInstances(_ body: @escaping @Sendable (OtherInstanceNews) -> Void) async {
        var lostAt: Int64? = nil
        let heard = HeardEvents()
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(),
                                                                      configuration: connector.configuration, id: 0, logger: connector.logger)
                do {
                    try await connection.listen(on: Self.batchChannel) { notifications in
                        if let lost = lostAt {
                            body(.fixes(try await latest(of: BatchNote(instance: instance, receivedAt: lost - Self.replayMargin, devices: nil))))
                            let events = heard.new(try await eventsStored(since: lost - Self.replayMargin), forgetting: false)
                            if !events.isEmpty { body(.events(events)) }
                            lostAt = nil
                        }
                        // The notes are read here and merged while a read of the latest positions
                        // is under way, which then reads all that came meanwhile at once: an
                        // instance that falls behind catches up with one read, not one per note.
                        let pending = PendingBatchNotes()
                        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                do {
                                    for await _ in wakeups {
                                        guard let note = pending.take() else { continue }
                                        body(.fixes(try await self.latest(of: note)))
                                    }
                                } catch {
                                    // Ends the notifications, so the listen ends with this error.
                                    try? await connection.close()
                                    throw error
                                }
                            }
                            for try await notification in notifications {
                                if Task.isCancelled { break }
                                if let note = EventNote(notification.payload) {
                                    let events = note.instance == instance ? [] : heard.new(note.events, forgetting: true)
                                    if !events.isEmpty { body(.events(events)) }
                                    continue
                                }
                                guard let note = BatchNote(notification.payload), note.instance != instance else { continue }
                                pending.add(note)
                                wake.yield()
                            }
                            wake.finish()
                            try await group.waitForAll()
                        }
                    }
                } catch {}
                try? await connection.close()
            } catch {}
            if lostAt == nil { lostAt = Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// The most events `eventsStored(since:)` reads: an outage's worth at a fleet's rate of
    /// crossings (886 a minute from 5,000 devices in `tracking.sh`), bounded.
    static let maximumReplayedEvents = 10_000

    /// The events other instances stored at or after `since` (ms, their clocks): of the
    /// `maximumReplayedEvents` stored last, in `FenceEvent.ordered` order.
    func eventsStored(since: Int64) async throws(PostgresStoreError) -> [FenceEvent] {
        let query: PostgresQuery = """
            SELECT device, fence, kind, time, latitude, longitude FROM (
                SELECT * FROM events WHERE stored_at >= \(since) AND instance <> \(instance)
                ORDER BY stored_at DESC LIMIT \(Int64(Self.maximumReplayedEvents))) AS e
            ORDER BY time, \(unescaped: FenceEvent.Kind.rankSQL("kind")), fence, device
            """
        return try await connector.suspending { session in try await session.query(query).get().compactMap(Self.event) }
    }

    /// The latest positions a batch note names.
    func latest(of note: BatchNote) async throws -> [StoredFix] {
        if let devices = note.devices { return try await latest(devices: devices) }
        return try await latestFixes("\(unescaped: Self.selectLatest) WHERE p.received_at >= \(note.receivedAt)")
    }
}

/// The events of other instances an instance told its followers of (`followOtherInstances`),
/// kept `2 × replayMargin`: an event both in a note and in the read after a lost connection
/// (stored just before the loss, or after the new LISTEN and before the read) goes out once.
final class HeardEvents: Sendable {
    /// Each event and when it was heard, ms since 1970; when it last forgot.
    private let state = Mutex<(heard: [FenceEvent: Int64], forgotAt: Int64)>(([:], 0))

    /// Of `events`, those not heard before, now remembered. `forgetting` first forgets what was
    /// heard over `2 × replayMargin` ago, at most once per `replayMargin` (a scan of all it
    /// holds) — on a note, not on the read after a loss, which must still know what came just
    /// before it, however long ago that was.
    func new(_ events: [FenceEvent], forgetting: Bool, now: Int64 = Int64((Date().timeIntervalSince1970 * 1000).rounded())) -> [FenceEvent] {
        state.withLock { state in
            if forgetting, now - state.forgotAt >= PostgresPositionStore.replayMargin {
                state.heard = state.heard.filter { $0.value >= now - 2 * PostgresPositionStore.replayMargin }
                state.forgotAt = now
            }
            return events.filter { state.heard.updateValue(now, forKey: $0) == nil }
        }
    }
}

/// The batch notes an instance has heard and not yet read the latest positions of, merged
/// into one (`BatchNote.merged(with:)`): at most one note's worth of memory however far the
/// reads fall behind.
final class PendingBatchNotes: Sendable {
    private let note = Mutex<BatchNote?>(nil)

    func add(_ new: BatchNote) {
        note.withLock { $0 = $0?.merged(with: new) ?? new }
    }

    /// The merged note, leaving none; nil when none came since the last call.
    func take() -> BatchNote? {
        note.withLock { note in
            defer { note = nil }
            return note
        }
    }
}
