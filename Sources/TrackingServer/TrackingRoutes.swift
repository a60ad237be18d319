import Foundation
public import HTTPServing
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import TrackingProtocols

/// The tracking server's HTTP routes on a `LocalServer`:
/// - ingest: `/` (OsmAnd, GET or POST), `POST /owntracks` (replies `[]`), `POST /overland`
///   (replies exactly `{"result":"ok"}`), `/gpslogger` (GET or POST). A reply that acknowledges
///   is sent only after the fixes' group commit; 400 names the bad field, 403 an unknown device,
///   413 a body over 5 MiB, 503 (with `Retry-After`) a store that failed — never an ack.
/// - read: `GET /api/positions?device=…&from=…&to=…&format=geojson|gpx&track=raw|cleaned|matched`
///   (`TrackViews`; matched needs `--roads`, else 400; times ISO 8601 or
///   Unix seconds; `from` included, `to` excluded), `GET /api/events?device=…&from=…&to=…` (fence
///   events, JSON), `GET /metrics` (Prometheus text).
/// - live: `/live?devices=…|bbox=…`, a WebSocket of latest positions (TrackingLive.swift).
public enum TrackingRoutes {
    /// The most fixes one read returns: a device-day at 1 Hz is 86,400.
    public static let maximumReadFixes = 200_000

    /// Serves until SIGINT or SIGTERM (or cancellation), then commits what is queued.
    public static func run(_ options: LocalServer.Options, ingest: TrackingIngest,
                           serving: @escaping @Sendable (String) -> Void, note: @escaping @Sendable (String) -> Void) async throws {
        let server = try LocalServer(options)
        addRoutes(to: server.router, ingest: ingest)
        defer { ingest.stop() }
        try await server.run(serving: serving, note: note)
    }

    static func addRoutes(to router: Router<BasicWebSocketRequestContext>, ingest: TrackingIngest) {
        let osmAnd: @Sendable (Request, BasicWebSocketRequestContext) async -> Response = { request, _ in
            await handle("osmand", request, ingest: ingest, reply: text("OK\n")) { query, body, type, rules throws(TrackingProtocolError) in
                DecodedFixes(fixes: try OsmAnd.decode(query: query, body: body, contentType: type, rules: rules, speedUnit: ingest.speedUnit(for:)))
            }
        }
        router.get("/", use: osmAnd)
        router.post("/", use: osmAnd)
        router.post("/owntracks") { request, _ in
            let user = request.headers[.init("X-Limit-U")!], device = request.headers[.init("X-Limit-D")!]
            let hint = user.map { u in device.map { "\(u)/\($0)" } ?? u }
            return await handle("owntracks", request, ingest: ingest, reply: json("[]")) { _, body, _, rules throws(TrackingProtocolError) in
                DecodedFixes(fixes: try OwnTracks.decode(body: body, deviceHint: hint, rules: rules))
            }
        }
        router.post("/overland") { request, _ in
            let fields = try? FormFields(Substring(request.uri.query ?? ""))
            let hint = fields?.first("device_id", "device")?.value
            return await handle("overland", request, ingest: ingest, reply: json(#"{"result":"ok"}"#)) { _, body, _, rules throws(TrackingProtocolError) in
                try Overland.decode(body: body, deviceHint: hint, rules: rules)
            }
        }
        let gpsLogger: @Sendable (Request, BasicWebSocketRequestContext) async -> Response = { request, _ in
            await handle("gpslogger", request, ingest: ingest, reply: text("OK\n")) { query, body, _, rules throws(TrackingProtocolError) in
                DecodedFixes(fixes: [try GPSLogger.decode(query: query, body: body, rules: rules)])
            }
        }
        router.get("/gpslogger", use: gpsLogger)
        router.post("/gpslogger", use: gpsLogger)
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
                     body: .init(byteBuffer: ByteBuffer(string: ingest.metrics.text())))
        }
    }

    typealias Decode = @Sendable (Substring, [UInt8], String?, DecodingRules) throws(TrackingProtocolError) -> DecodedFixes

    /// Reads the body, decodes, stores and answers; the reply acknowledges only after the commit.
    static func handle(_ endpoint: String, _ request: Request, ingest: TrackingIngest, reply: Response,
                       decode: Decode) async -> Response {
        ingest.metrics.request(endpoint)
        let response = await respond(request, ingest: ingest, reply: reply, decode: decode)
        ingest.metrics.response(response.status.code)
        return response
    }

    static func respond(_ request: Request, ingest: TrackingIngest, reply: Response, decode: Decode) async -> Response {
        let receivedAt = Date()
        let rules = DecodingRules(now: receivedAt)
        let body: [UInt8]
        // A declared length over the bound is refused at once, as nginx's client_max_body_size
        // is: a client announcing 4 GB gets its 413 without the server waiting for the bytes.
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > rules.maximumBodyBytes {
            return text("body larger than \(rules.maximumBodyBytes) bytes\n", status: .contentTooLarge, close: true)
        }
        do {
            var buffer = try await request.body.collect(upTo: rules.maximumBodyBytes)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return text("body larger than \(rules.maximumBodyBytes) bytes\n", status: .contentTooLarge, close: true)
        }
        let decoded: DecodedFixes
        do {
            decoded = try decode(Substring(request.uri.query ?? ""), body, request.headers[.contentType], rules)
        } catch {
            ingest.metrics.rejected(1)
            return text("\(error)\n", status: .badRequest)
        }
        if !decoded.rejected.isEmpty { ingest.metrics.rejected(decoded.rejected.count) }
        if decoded.fixes.isEmpty, let first = decoded.rejected.first {
            return text("\(first)\n", status: .badRequest)
        }
        do {
            try await ingest.ingest(decoded.fixes, receivedAt: receivedAt)
        } catch {
            switch error.kind {
            case .unknownDevice: return text("\(error)\n", status: .forbidden)
            case .storageUnavailable:
                var response = text("\(error)\n", status: .serviceUnavailable)
                response.headers[.retryAfter] = "1"
                return response
            }
        }
        return reply
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
        var fixes: [StoredFix]
        do {
            fixes = try await ingest.positions(device: device, from: from, to: to, limit: maximumReadFixes)
        } catch {
            return text("storage unavailable: \(error)\n", status: .serviceUnavailable)
        }
        if track == "cleaned" { fixes = TrackViews.cleaned(fixes) }
        if track == "matched", let matcher = ingest.matcher { fixes = TrackViews.matched(fixes, matcher: matcher) }
        switch fields.first("format")?.value ?? "geojson" {
        case "geojson":
            return Response(status: .ok, headers: [.contentType: "application/geo+json"], body: .init(byteBuffer: ByteBuffer(bytes: TrackOutput.geoJSON(fixes))))
        case "gpx":
            return Response(status: .ok, headers: [.contentType: "application/gpx+xml"], body: .init(byteBuffer: ByteBuffer(bytes: TrackOutput.gpx(fixes, device: device))))
        case let other:
            return text("format '\(other)' is not geojson or gpx\n", status: .badRequest)
        }
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
            return text("storage unavailable: \(error)\n", status: .serviceUnavailable)
        }
    }

    static func text(_ body: String, status: HTTPResponse.Status = .ok, close: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if close { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func json(_ body: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
