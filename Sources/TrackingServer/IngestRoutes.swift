import Foundation
import HTTPServing
import NIOCore
import NIOHTTP1
import TrackingProtocols

/// The ingest endpoints, answered on the connection's event loop (`EventLoopRoutes`): `/`
/// (OsmAnd, GET or POST), `POST /owntracks` (replies `[]`), `POST /overland` (replies exactly
/// `{"result":"ok"}`), `/gpslogger` (GET or POST). The request is decoded on the event loop and
/// its fixes handed to the group committer, whose writer thread completes the reply once the
/// batch holding them is committed: no Swift task and no hop through the cooperative pool per
/// request. 400 names the bad field, 403 an unknown device, 413 a body over 5 MiB (before it is
/// read when it is announced), 503 (with `Retry-After`) a store that failed — never an ack.
struct IngestRoutes: EventLoopRoutes {
    enum Endpoint: String {
        case osmAnd = "osmand", ownTracks = "owntracks", overland, gpsLogger = "gpslogger"

        init?(_ method: HTTPMethod, path: Substring) {
            switch (method, path) {
            case (.GET, "/"), (.POST, "/"): self = .osmAnd
            case (.POST, "/owntracks"): self = .ownTracks
            case (.POST, "/overland"): self = .overland
            case (.GET, "/gpslogger"), (.POST, "/gpslogger"): self = .gpsLogger
            default: return nil
            }
        }

        /// The reply each app expects for a stored request.
        var acknowledgement: EventLoopResponse {
            switch self {
            case .osmAnd, .gpsLogger: Self.ok
            case .ownTracks: Self.emptyArray
            case .overland: Self.resultOK
            }
        }

        // Made once, with their `Content-Length` (the header the handler would add to a copy of
        // the fields per reply, after the same `Content-Type`): the same bytes on the wire.
        private static let ok = withLength(EventLoopResponse(body: "OK\n"))
        private static let emptyArray = withLength(EventLoopResponse(contentType: "application/json", body: "[]"))
        private static let resultOK = withLength(EventLoopResponse(contentType: "application/json", body: #"{"result":"ok"}"#))

        private static func withLength(_ response: EventLoopResponse) -> EventLoopResponse {
            var response = response
            response.headers.add(name: "Content-Length", value: String(response.body.readableBytes))
            return response
        }
    }

    let ingest: TrackingIngest
    /// The decoders' bound on a body (`DecodingRules.maximumBodyBytes`, 5 MiB).
    let maximumBodyBytes = DecodingRules(now: Date(timeIntervalSince1970: 0)).maximumBodyBytes

    func answers(_ head: HTTPRequestHead) -> Bool {
        Endpoint(head.method, path: EventLoopRequest.path(of: head.uri)) != nil
    }

    func respond(to request: EventLoopRequest, reply: EventLoopPromise<EventLoopResponse>) {
        guard let endpoint = Endpoint(request.head.method, path: request.path) else {
            return reply.succeed(EventLoopResponse(status: .notFound, body: "no ingest endpoint at \(request.path)\n"))
        }
        let metrics = ingest.metrics, reached = NIODeadline.now()
        metrics.request(endpoint.rawValue)
        @Sendable func finish(_ response: EventLoopResponse) {
            metrics.ingestAnswered(Int(response.status.code), seconds: Double((NIODeadline.now() - reached).nanoseconds) / 1e9)
            reply.succeed(response)
        }
        let receivedAt = Date()
        let decoded: DecodedFixes
        do {
            decoded = try decode(endpoint, request, rules: DecodingRules(now: receivedAt))
        } catch {
            metrics.rejected(1)
            return finish(EventLoopResponse(status: .badRequest, body: "\(error)\n"))
        }
        if !decoded.rejected.isEmpty { metrics.rejected(decoded.rejected.count) }
        if decoded.fixes.isEmpty, let first = decoded.rejected.first {
            return finish(EventLoopResponse(status: .badRequest, body: "\(first)\n"))
        }
        ingest.ingest(decoded.fixes, receivedAt: receivedAt, completingOn: reply.futureResult.eventLoop) { result in
            switch result {
            case .success: finish(endpoint.acknowledgement)
            case .failure(let error):
                switch error.kind {
                case .unknownDevice: finish(EventLoopResponse(status: .forbidden, body: "\(error)\n"))
                case .storageUnavailable: finish(EventLoopResponse(status: .serviceUnavailable, body: "\(error)\n", retryAfter: 1))
                }
            }
        }
    }

    func decode(_ endpoint: Endpoint, _ request: EventLoopRequest, rules: DecodingRules) throws(TrackingProtocolError) -> DecodedFixes {
        let body = [UInt8](request.body.readableBytesView), headers = request.head.headers
        switch endpoint {
        case .osmAnd:
            return DecodedFixes(fixes: try OsmAnd.decode(query: request.query, body: body, contentType: headers.first(name: "content-type"),
                                                         rules: rules, speedUnit: ingest.speedUnit(for:)))
        case .ownTracks:
            let user = headers.first(name: "X-Limit-U"), device = headers.first(name: "X-Limit-D")
            let hint = user.map { u in device.map { "\(u)/\($0)" } ?? u }
            return DecodedFixes(fixes: try OwnTracks.decode(body: body, deviceHint: hint, rules: rules))
        case .overland:
            let hint = (try? FormFields(request.query))?.first("device_id", "device")?.value
            return try Overland.decode(body: body, deviceHint: hint, rules: rules)
        case .gpsLogger:
            return DecodedFixes(fixes: [try GPSLogger.decode(query: request.query, body: body, rules: rules)])
        }
    }
}
