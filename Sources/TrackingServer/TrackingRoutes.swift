import Foundation
public import HTTPServing
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Synchronization
import TrackingProtocols

/// The tracking server's HTTP routes on a `LocalServer`:
/// - ingest: `/` (OsmAnd, GET or POST), `POST /owntracks`, `POST /overland`, `/gpslogger` (GET
///   or POST), answered on the event loop after the fixes' group commit (`IngestRoutes`).
/// - read: `GET /api/positions?device=…&from=…&to=…&format=geojson|gpx&track=raw|cleaned|matched`
///   (`TrackViews`; matched needs `--roads`, else 400; times ISO 8601 or
///   Unix seconds; `from` included, `to` excluded), `GET /api/events?device=…&from=…&to=…` (fence
///   events, JSON), `GET /metrics` (Prometheus text).
/// - live: `/live?devices=…|bbox=…`, a WebSocket of latest positions (TrackingLive.swift).
public enum TrackingRoutes {
    /// The most fixes one read returns: a device-day at 1 Hz is 86,400.
    public static let maximumReadFixes = 200_000

    /// Serves until SIGINT or SIGTERM (or cancellation), then commits what is queued. Notes the
    /// open-file limit first (`TrackingIngest.openFiles`) and the `/live` subscribers it allows.
    public static func run(_ options: LocalServer.Options, ingest: TrackingIngest,
                           serving: @escaping @Sendable (String) -> Void, note: @escaping @Sendable (String) -> Void) async throws {
        note(openFilesNote(ingest))
        let server = try LocalServer(options)
        addRoutes(to: server.router, ingest: ingest, refusals: server.refusals)
        do {
            try await server.run(eventLoopRoutes: IngestRoutes(ingest: ingest), serving: serving, note: note)
        } catch {
            await ingest.stopped()
            throw error
        }
        await ingest.stopped()
    }

    /// `open files: at most 20000 (soft RLIMIT_NOFILE; hard 20000; 1024 before the server raised it); /live: at most 10000 subscribers`.
    static func openFilesNote(_ ingest: TrackingIngest) -> String {
        func text(_ n: Int) -> String { n == Int.max ? "unlimited" : "\(n)" }
        let (before, after) = ingest.openFiles
        let raised = before == after ? "" : "; \(text(before)) before the server raised it"
        return "open files: at most \(text(after)) (soft RLIMIT_NOFILE; hard \(text(OpenFileLimit.current.hard))\(raised)); "
            + "/live: at most \(ingest.live.maximumSubscribers) subscribers"
    }

    /// - Parameter refusals: the server's count of what it refused before a route, in `/metrics`
    ///   as `tracking_http_refusals_total`.
    static func addRoutes(to router: Router<BasicWebSocketRequestContext>, ingest: TrackingIngest, refusals: HTTPRefusals) {
        router.get("/api/positions") { request, _ in
            ingest.metrics.request("positions")
            let response = await read(request, ingest: ingest)
            ingest.metrics.response(response.status.code)
            return response
        }
        router.get("/api/events") { request, _ in
            ingest.metrics.request("events")
            let response = await readEvents(request, ingest: ingest)
            ingest.metrics.response(response.status.code)
            return response
        }
        addLiveRoute(to: router, ingest: ingest)
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: ingest.metrics.text() + refusals.prometheus(name: "tracking_http_refusals_total"))))
        }
    }

    static func read(_ request: Request, ingest: TrackingIngest) async -> Response {
        let fields: FormFields
        do { fields = try FormFields(Substring(request.uri.query ?? "")) } catch { return text("\(error)\n", status: .badRequest) }
        guard let device = fields.first("device")?.value else { return text("no 'device' parameter\n", status: .badRequest) }
        guard let (from, to) = timeRange(fields) else {
            return text("'from' and 'to' are ISO 8601 times or Unix seconds\n", status: .badRequest)
        }
        let track = fields.first("track")?.value ?? "raw"
        guard ["raw", "cleaned", "matched"].contains(track) else {
            return text("track '\(track)' is not raw, cleaned or matched\n", status: .badRequest)
        }
        if track == "matched", ingest.matcher == nil {
            return text("track=matched needs roads: this server was started without --roads FILE.osm.pbf\n", status: .badRequest)
        }
        let format = fields.first("format")?.value ?? "geojson"
        guard ["geojson", "gpx"].contains(format) else { return text("format '\(format)' is not geojson or gpx\n", status: .badRequest) }
        let type = format == "gpx" ? "application/gpx+xml" : "application/geo+json"
        // Turns are taken in the line of the client's address (`Turns`).
        let client = ServedConnection.clientAddress ?? ""
        // The first page (or whole track) before the reply's head, so storage down is a 503.
        if track == "raw" {
            var pages = ingest.positions(device: device, from: from, to: to, limit: maximumReadFixes)
            let turn = await ingest.readTurns.pages.turn(for: client)
            let first: [StoredFix]
            do { first = try await pages.next() ?? [] } catch { return unavailable(error) }
            let pieces: @Sendable () -> any TrackOutput.Pieces
            if format == "gpx" {
                pieces = { TrackOutput.GPXPieces(device: device, pieceBytes: pieceBytes) }
            } else {
                pieces = { TrackOutput.GeoJSONPieces(pieceBytes: pieceBytes) }
            }
            return paged(first, type: type, in: pieces, turn: turn, then: (pages, ingest.readTurns.pages), of: client, metrics: ingest.metrics)
        }
        // The cleaned and matched tracks are computed over the whole range.
        let encoded: @Sendable () async throws -> [UInt8] = {
            var pages = ingest.positions(device: device, from: from, to: to, limit: maximumReadFixes)
            var fixes: [StoredFix] = []
            while let page = try await pages.next() { fixes += page }
            if track == "cleaned" { fixes = TrackViews.cleaned(fixes) }
            if track == "matched", let matcher = ingest.matcher { fixes = TrackViews.matched(fixes, matcher: matcher) }
            return format == "gpx" ? TrackOutput.gpx(fixes, device: device) : TrackOutput.geoJSON(fixes)
        }
        let turn = await ingest.readTurns.wholeTracks.turn(for: client)
        let bytes: [UInt8]
        do { bytes = try await encoded() } catch { return unavailable(error) }
        return wholeTrack(bytes, type: type, turn: turn, again: (encoded, ingest.readTurns.wholeTracks), of: client, metrics: ingest.metrics)
    }

    /// The size of a read reply's pieces, bytes.
    static let pieceBytes = 1 << 16

    /// A reply of `first` and then of the pages `rest` reads, written in the `pieces` of a
    /// format (`pieceBytes` each) and sent as they are (chunked transfer encoding), ending `turn` after its
    /// last byte; each page is held in a turn of `rest.turns` (`turn` the first's, the others
    /// taken in `client`'s line), and the next turn is taken only when `rest.pages` may give
    /// another page. The next page is read while a page is written when a turn is free at once
    /// (`Turns.turnIfFree`).
    /// - A client that takes nothing for 50 ms, when a piece is ready, has the page's unsent
    ///   fixes (and the page read ahead) given back (`FixPages.giveBack`) and its turns ended
    ///   while the reply waits for it: 50 clients that read none of a device-day held 10 MB
    ///   each (a page of 32,768 fixes, SQLite's then, and 1 MiB pieces). `metrics` counts it
    ///   (`tracking_stalled_replies_total`). One that takes nothing for the server's idle
    ///   timeout is closed (`ServedConnection.drained`).
    /// - A page's read failing ends the reply without its last chunk, which a client takes for
    ///   a broken reply (RFC 9112 §7.1), not for the whole track; `metrics` counts it
    ///   (`tracking_broken_replies_total`).
    static func paged(_ first: [StoredFix], type: String, in pieces: @escaping @Sendable () -> any TrackOutput.Pieces, turn: Turn,
                      then rest: (pages: FixPages, turns: Turns), of client: String, metrics: TrackingMetrics) -> Response {
        // Taken out of the body's closure, which would hold the first page to the reply's end.
        let first = Handed(first)
        return Response(status: .ok, headers: [.contentType: type], body: ResponseBody { writer in
            var page = first.take()[...], rest = rest, held = turn, pieces = pieces()
            // The next page, read while this one is written when a turn is free at once.
            var ahead: Task<(pages: FixPages, page: [StoredFix]?, turn: Turn), any Error>?
            do {
                while true {
                    if ahead == nil, !rest.pages.isFinished, let turn = rest.turns.turnIfFree() {
                        let pages = rest.pages
                        ahead = Task {
                            var pages = pages
                            let page = try await pages.next()
                            return (pages, page, turn)
                        }
                    }
                    guard let piece = pieces.piece(from: &page) else {
                        // An empty slice of the page still holds it: 50 replies waiting for a
                        // turn so held a page each beside the 8 in turns (GPX, 306 MB at most).
                        page = []
                        held.end()
                        var next: [StoredFix]? = nil
                        if let read = ahead {
                            ahead = nil
                            (rest.pages, next, held) = try await read.value
                        } else if !rest.pages.isFinished {
                            held = await rest.turns.turn(for: client)
                            next = try await rest.pages.next()
                        }
                        if let next {
                            page = next[...]
                            continue
                        }
                        try await writer.write(ByteBuffer(bytes: pieces.last()))
                        break
                    }
                    if try await !ServedConnection.hasRoom(within: .milliseconds(50)) {
                        metrics.replyStalled()
                        var later: [StoredFix] = []
                        if let read = ahead {
                            ahead = nil
                            let read = try await read.value
                            (rest.pages, later) = (read.pages, read.page ?? [])
                            read.turn.end()
                        }
                        rest.pages.giveBack(page, later[...])
                        page = []
                        held.end()
                        try await ServedConnection.drained()
                    }
                    try await writer.write(ByteBuffer(bytes: piece))
                }
            } catch {
                metrics.replyBroken()
                throw error
            }
            try await writer.finish(nil)
            held.end()
        })
    }

    /// A reply of a whole track's `bytes` (a cleaned or matched track), sent in pieces
    /// (`pieceBytes`), ending `turn` (of `again.turns`, taken again in `client`'s line) after
    /// its last byte.
    /// - A client that takes nothing for 50 ms, when a piece is ready, is counted
    ///   (`tracking_stalled_replies_total`); the reply lets go of its bytes and its turn as soon
    ///   as another reply waits for a turn, or after 5 s, and waits for the client
    ///   (`ServedConnection.drained`: closed after the server's idle timeout). Once the client
    ///   takes more, the reply waits for a turn again, makes its bytes again (`again.bytes`)
    ///   and goes on after what was sent, counted (`tracking_remade_replies_total`). Holding
    ///   their turns, 50 clients that read none of a device-day as GPX kept a read behind them
    ///   waiting for over a minute.
    /// - Bytes made again that differ in what was sent (fixes were stored in the range since)
    ///   or fail to be made end the reply without its last chunk (RFC 9112 §7.1), counted
    ///   (`tracking_broken_replies_total`).
    static func wholeTrack(_ bytes: [UInt8], type: String, turn: Turn, again: (bytes: @Sendable () async throws -> [UInt8], turns: Turns),
                           of client: String, metrics: TrackingMetrics) -> Response {
        // Taken out of the body's closure, which would hold them to the reply's end.
        let first = Handed(bytes)
        let count = bytes.count
        return Response(status: .ok, headers: [.contentType: type], body: ResponseBody { writer in
            // `bytes` empty: let go of, to be made again.
            var bytes = first.take(), held: Turn? = turn, sent = 0, sentDigest = 0
            do {
                while sent < count {
                    if bytes.isEmpty {
                        guard ServedConnection.isOpen else { throw ClientGone() }
                        held = await again.turns.turn(for: client)
                        bytes = try await again.bytes()
                        guard bytes.count == count, digest(bytes[..<sent]) == sentDigest else { throw TrackChanged() }
                        metrics.replyRemade()
                    }
                    if try await !ServedConnection.hasRoom(within: .milliseconds(50)) {
                        metrics.replyStalled()
                        let since = ContinuousClock.now
                        while try await !ServedConnection.hasRoom(within: .milliseconds(250)) {
                            guard again.turns.waiting > 0 || ContinuousClock.now - since > .seconds(5) else { continue }
                            sentDigest = digest(bytes[..<sent])
                            bytes = []
                            held?.end()
                            held = nil
                            try await ServedConnection.drained()
                            break
                        }
                        continue
                    }
                    let end = min(sent + pieceBytes, count)
                    try await writer.write(ByteBuffer(bytes: bytes[sent..<end]))
                    sent = end
                }
            } catch {
                metrics.replyBroken()
                throw error
            }
            try await writer.finish(nil)
            held?.end()
        })
    }

    /// Bytes made again for a reply differ in what it had sent.
    struct TrackChanged: Error {}
    /// A reply's client left while the reply waited for it.
    struct ClientGone: Error {}

    /// A digest of `bytes` (within one run of the server).
    private static func digest(_ bytes: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// What a reply begins with (its first page, its bytes), handed once to its body.
    private final class Handed<Value: RangeReplaceableCollection & Sendable>: Sendable {
        private let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func take() -> Value { value.withLock { value in defer { value = Value() }; return value } }
    }

    /// The `from` (included) and `to` (excluded) of a read, milliseconds since 1970 (absent: no
    /// bound); nil when one is neither ISO 8601 nor Unix seconds.
    static func timeRange(_ fields: FormFields) -> (from: Int64, to: Int64)? {
        func time(_ name: String, default value: Int64) -> Int64? {
            guard let t = fields.first(name)?.value else { return value }
            if let seconds = Double(t), seconds.isFinite, abs(seconds) < 9e15 { return Int64((seconds * 1000).rounded()) }
            return TimeText.date(iso8601: t).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        }
        guard let from = time("from", default: .min), let to = time("to", default: .max) else { return nil }
        return (from, to)
    }

    /// `GET /api/events?device=…&from=…&to=…`: fence events as `FenceEvent.message` JSON, by
    /// time; without `device`, every device's.
    static func readEvents(_ request: Request, ingest: TrackingIngest) async -> Response {
        let fields: FormFields
        do { fields = try FormFields(Substring(request.uri.query ?? "")) } catch { return text("\(error)\n", status: .badRequest) }
        guard let (from, to) = timeRange(fields) else {
            return text("'from' and 'to' are ISO 8601 times or Unix seconds\n", status: .badRequest)
        }
        do {
            let events = try await ingest.events(device: fields.first("device")?.value, from: from, to: to, limit: maximumReadFixes)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: FenceEvent.message(events))))
        } catch {
            return unavailable(error)
        }
    }

    static func unavailable(_ error: any Error) -> Response {
        text("storage unavailable: \(error)\n", status: .serviceUnavailable)
    }

    static func text(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
