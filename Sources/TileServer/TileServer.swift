public import HTTPServing
public import GeoBase
import GeoCore
import Hummingbird
import MapData
public import MapStyle
import StyleRendering
import Synchronization
import SystemIO
import TileArchives
import ZlibCompression

/// `geo serve`: map sources, styles, glyphs and sprites over HTTP for MapLibre clients, on a
/// `LocalServer` (loopback unless told otherwise, `Host` and `Origin` checked, bounded heads).
///
/// Routes (`TileRoute`): `/` index, `/metrics`, `/{tileset}.json` TileJSON 3.0.0,
/// `/{tileset}/{z}/{x}/{y}.{pbf|png|…}` tiles as stored, `/{tileset}.pmtiles` the archive with
/// byte ranges (RFC 7233), `/styles/{id}/style.json`, `/fonts/{fontstack}/{range}.pbf`,
/// `/sprites/{id}[@2x].{json,png}`, `/styles/{id}/{z}/{x}/{y}[@2x].png` (RasterTiles.swift).
public final class TileServer: Sendable {
    public struct Options: Sendable {
        /// Map sources: `.pmtiles`, `.mbtiles`, folders of z/x/y tiles, OpenStreetMap extracts
        /// tiled in memory on start (`MapSources.open`).
        public var data: [String]
        /// Style files; each is served as `/styles/{file name without .json}/style.json`. The
        /// built-in styles `default` and `default-night` (`DefaultStyle`) are served besides,
        /// over the first vector tileset, unless a file takes their id.
        public var styles: [String]
        /// What the built-in styles show.
        public var builtInStyles: DefaultStyle.Options
        /// A folder of glyph folders (`geo glyphs build` output, one per font stack).
        public var fonts: String?
        /// Makes the glyph PBF of a font stack's range from local fonts (`LocalGlyphRanges`)
        /// when no folder under `fonts` has the stack; nil serves only those folders.
        public var localGlyphs: (@Sendable (_ stack: String, _ start: UInt32) throws -> [UInt8])?
        /// The origin whose pages may read the tiles (`Access-Control-Allow-Origin`), or `*`.
        public var cors: String?
        /// The most bytes of raster tile PNGs kept in memory; 0 keeps none.
        public var rasterCacheBytes: Int

        public init(data: [String], styles: [String] = [], builtInStyles: DefaultStyle.Options = .init(), fonts: String? = nil,
                    localGlyphs: (@Sendable (_ stack: String, _ start: UInt32) throws -> [UInt8])? = nil, cors: String? = nil,
                    rasterCacheBytes: Int = 64 << 20) {
            self.data = data
            self.styles = styles
            self.builtInStyles = builtInStyles
            self.fonts = fonts
            self.localGlyphs = localGlyphs
            self.cors = cors
            self.rasterCacheBytes = rasterCacheBytes
        }
    }

    /// `Cache-Control` of tiles: five minutes, then revalidated by ETag.
    static let tileCaching = "public, max-age=300"
    /// The most a gzip tile is inflated to for a client that does not take gzip, bytes.
    static let inflateLimit = VectorTile.defaultInflateLimit
    /// Bytes of an archive sent per write.
    static let chunkSize = 1 << 20

    let tilesets: [(name: String, source: ReopeningMapSource)]
    let styles: [ServedStyle]
    /// Sprite sheets by id.
    let sprites: [String: ServedSprite]
    let options: Options
    let metrics = TileServerMetrics()
    /// What the server refused before a route saw it (`LocalServer`), in `/metrics`.
    let refusals = HTTPRefusals()
    let rasterCache: ByteBoundedCache<RasterTileKey>
    /// Glyph ranges made from local fonts (`Options.localGlyphs`), by font stack and range.
    let localGlyphCache = ByteBoundedCache<GlyphRangeKey>(byteLimit: 32 << 20)
    /// TileJSON, the index and rewritten styles as sent, per version and `Host`.
    let documents = DocumentCache()
    /// Each style as its raster tiles draw it, by style id, with the `rasterVersion` it was made for.
    let preparedStyles = Mutex<[String: (version: UInt64, document: StyleDocument)]>([:])
    /// One line per request, written in batches while `run` serves; nil for none (`--quiet`).
    let accessLog: AccessLog?
    let note: @Sendable (String) -> Void

    /// Opens every source and reads every style.
    /// - Parameters:
    ///   - log: gets the access log (one line per request) in batches of whole lines, each
    ///     ended by a newline, from a task of its own while `run` serves; nil for none.
    ///   - note: errors while serving (a damaged tile, a replacement that does not open).
    /// - Throws: the first source that does not open; `TileServerError` for two sources or
    ///   styles of one name, or a style that is not a JSON object.
    public init(_ options: Options, log: (@Sendable (String) -> Void)?, note: @escaping @Sendable (String) -> Void) throws {
        self.options = options
        rasterCache = ByteBoundedCache(byteLimit: options.rasterCacheBytes)
        accessLog = log.map { AccessLog(write: $0) }
        self.note = note
        var tilesets: [(String, ReopeningMapSource)] = []
        for path in options.data {
            let name = MapSources.name(of: path)
            guard !tilesets.contains(where: { $0.0 == name }) else { throw TileServerError(.duplicateName, "two map sources are named \(name): \(path)") }
            tilesets.append((name, try ReopeningMapSource(path: path, note: note)))
        }
        var styles: [ServedStyle] = [], sprites: [String: ServedSprite] = [:]
        for path in options.styles {
            let id = Self.styleID(path)
            guard !styles.contains(where: { $0.id == id }) else { throw TileServerError(.duplicateName, "two styles are named \(id): \(path)") }
            guard let style = TileDocuments.object(try FileDescriptor.readContents(of: path)) else { throw TileServerError(.invalidStyle, "\(path): not a JSON object") }
            styles.append(ServedStyle(id: id, origin: .file(WatchedFile(path: path))))
            let resources = StyleResourcePaths(base: FileDescriptor.directory(of: path), styleFolder: FileDescriptor.directory(of: path))
            switch style["sprite"] {
            case .string(let url)?: sprites[id] = (try? resources.path(for: url)).map(ServedSprite.files)
            case .array(let entries)?:
                for case .object(let e) in entries {
                    if case .string(let entryID)? = e["id"], case .string(let url)? = e["url"] { sprites["\(id)-\(entryID)"] = (try? resources.path(for: url)).map(ServedSprite.files) }
                }
            default: break
            }
        }
        if let vector = tilesets.first(where: { $0.1.current().metadata.format == .mvt }) {
            for builtIn in try ServedStyle.builtIn(over: vector.0, showing: options.builtInStyles, withLabels: options.fonts != nil || options.localGlyphs != nil)
            where !styles.contains(where: { $0.id == builtIn.id }) {
                styles.append(builtIn)
                sprites[builtIn.id] = .builtIn
            }
        }
        self.tilesets = tilesets
        self.styles = styles
        self.sprites = sprites
    }

    /// `osm-bright.json` → `osm-bright`; `…/osm-bright/style.json` → `osm-bright`.
    static func styleID(_ path: String) -> String {
        let parts = path.split(separator: "/")
        var file = parts.last.map(String.init) ?? path
        if file == "style.json", parts.count >= 2 { file = String(parts[parts.count - 2]) }
        return file.hasSuffix(".json") ? String(file.dropLast(5)) : file
    }

    /// Serves until SIGINT or SIGTERM (or cancellation); `serving` gets each bound address.
    public func run(_ server: LocalServer.Options, serving: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        var server = server
        if let cors = options.cors { server.allowedOrigins.append(cors) }
        let local = try LocalServer(server, refusals: refusals)
        try await withThrowingDiscardingTaskGroup { group in
            if let accessLog { group.addTask { await accessLog.run() } }
            try await local.run(handler: { request in self.handle(request) }, eventLoopRoutes: TileEventLoopRoutes(server: self),
                                serving: serving, note: note)
            group.cancelAll()
        }
    }

    /// Answers a request `TileEventLoopRoutes` passes on to Hummingbird: an archive's bytes
    /// (streamed), and as `handle(_: TileRequest)` any other method than GET, HEAD and OPTIONS
    /// (405) and paths with `%` escapes.
    func handle(_ request: Request) -> Response {
        guard request.method == .get || request.method == .head, case .archive(let name)? = try? TileRoute.parse(request.uri.path) else {
            return handle(TileRequest(request)).response
        }
        let start = ContinuousClock.now
        var response: Response
        if let source = tileset(name) as? PMTilesSource { response = archive(source, request) } else {
            response = Self.text("no PMTiles archive \(name)", status: 404).response
        }
        if request.method == .head { response = response.createHeadResponse() }
        addCORS(&response.headers)
        record(request.method, request.uri.path, kind: "archive", status: response.status, bytes: response.body.contentLength ?? 0, since: start)
        return response
    }

    /// Answers one request but an archive's bytes, counts it in `/metrics` and logs it. A HEAD
    /// request gets the GET answer's status and header fields, `Content-Length` included,
    /// without its body (RFC 9110 §9.3.2).
    func handle(_ request: TileRequest) -> TileAnswer {
        let start = ContinuousClock.now
        var kind = "other"
        var answer: TileAnswer
        if request.method != .get && request.method != .head && request.method != .options {
            answer = TileAnswer(.methodNotAllowed, headers: [.allow: "GET, HEAD, OPTIONS"])
        } else if request.method == .options {
            answer = TileAnswer(.noContent, headers: [.accessControlAllowMethods: "GET, HEAD, OPTIONS",
                                                      .accessControlAllowHeaders: "Range, If-None-Match", .accessControlMaxAge: "86400"])
        } else {
            do {
                let route = try TileRoute.parse(request.path)
                kind = Self.kind(route)
                answer = respond(route, request)
            } catch {
                answer = Self.text(error.reason, status: error.status)
            }
            if request.method == .head { answer = answer.head }
        }
        addCORS(&answer.headers)
        record(request.method, request.path, kind: kind, status: answer.status, bytes: answer.body.readableBytes, since: start)
        return answer
    }

    /// `--cors`' header fields.
    private func addCORS(_ headers: inout HTTPFields) {
        guard let cors = options.cors else { return }
        headers[.accessControlAllowOrigin] = cors
        headers[.accessControlExposeHeaders] = "ETag, Content-Encoding, Content-Length, Content-Range, Accept-Ranges"
        if cors != "*" { headers[.vary] = [headers[.vary], "Origin"].compactMap { $0 }.joined(separator: ", ") }
    }

    /// Counts an answered request in `/metrics` and the access log.
    private func record(_ method: HTTPRequest.Method, _ path: String, kind: String, status: HTTPResponse.Status, bytes: Int, since start: ContinuousClock.Instant) {
        let seconds = (ContinuousClock.now - start).seconds
        metrics.record(kind: kind, status: Int(status.code), bytes: bytes, seconds: seconds)
        accessLog?.append("\(method) \(path) \(status.code) \(bytes) \(Int((seconds * 1e6).rounded())) µs")
    }

    private static func kind(_ route: TileRoute) -> String {
        switch route {
        case .index: "index"
        case .metrics: "metrics"
        case .tileJSON: "tilejson"
        case .archive: "archive"
        case .tile: "tile"
        case .style: "style"
        case .glyphs: "glyphs"
        case .sprite: "sprite"
        case .raster: "raster"
        }
    }

    private func respond(_ route: TileRoute, _ request: TileRequest) -> TileAnswer {
        let base = "http://" + (request.host ?? "127.0.0.1")
        switch route {
        case .index:
            let sets = tilesets.map { ($0.name, $0.source.versioned()) }
            let key = DocumentCache.Key(document: "index", base: base, version: Self.version(sets.map(\.1.generation)))
            return Self.json(documents.document(key) {
                TileDocuments.index(tilesets: sets.map { ($0.0, $0.1.source.metadata) }, styles: styles.map(\.id), base: base)
            })
        case .metrics:
            return TileAnswer(headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                              body: ByteBuffer(string: metrics.text(rasterCache: rasterCache.statistics, documents: documents.statistics)
                                                    + refusals.prometheus(name: "tileserver_http_refusals_total")))
        case .tileJSON(let name):
            guard let (source, generation) = tilesets.first(where: { $0.name == name })?.source.versioned() else {
                return Self.text("no tileset \(name)", status: 404)
            }
            let key = DocumentCache.Key(document: "tilejson/" + name, base: base, version: UInt64(generation))
            return Self.json(documents.document(key) { TileDocuments.tileJSON(source.metadata, name: name, base: base) })
        case .tile(let name, let z, let x, let y, let ext):
            return tile(name, z, x, y, ext, request)
        case .archive(let name):
            // Archives stream through `handle(_: Request)`; `TileEventLoopRoutes` passes them on.
            return Self.text("no PMTiles archive \(name) at this path", status: 404)
        case .style(let id):
            guard let style = styles.first(where: { $0.id == id }) else { return Self.text("no style \(id)", status: 404) }
            guard let (bytes, hash) = try? style.contents() else {
                note("\(style.name): cannot be read")
                return Self.text("the style \(id) cannot be read", status: 500)
            }
            let sets = tilesets.map { ($0.name, $0.source.versioned()) }
            let key = DocumentCache.Key(document: "style/" + id, base: base, version: Self.version(sets.map(\.1.generation), styleHash: hash))
            let document = documents.document(key, ifMade: {
                TileDocuments.object(bytes).map { style in
                    TileDocuments.rewrittenStyle(style, id: id, tilesets: sets.map { ($0.0, $0.1.source.metadata) }, servesFonts: servesFonts,
                                                 spriteIDs: Set(sprites.keys), base: base)
                }
            })
            guard let document else {
                note("\(style.name): cannot be read as a JSON object")
                return Self.text("the style \(id) cannot be read", status: 500)
            }
            return Self.json(document)
        case .glyphs(let stack, let range):
            return glyphs(stack, range)
        case .raster(let id, let z, let x, let y, let highDensity):
            return raster(id, z, x, y, highDensity: highDensity)
        case .sprite(let id, let highDensity, let ext):
            guard let sprite = sprites[id] else { return Self.text("no sprite \(id)", status: 404) }
            guard let bytes = try? sprite.bytes(highDensity: highDensity, ext: ext) else { return Self.text("no sprite file \(id)", status: 404) }
            return TileAnswer(headers: [.contentType: ext == "png" ? "image/png" : "application/json", .cacheControl: Self.tileCaching],
                              body: ByteBuffer(bytes: bytes))
        }
    }

    func tileset(_ name: String) -> (any MapSource)? {
        tilesets.first { $0.name == name }?.source.current()
    }

    /// A tile: 404 outside the tileset's zooms or bounds or for another format, 204 for an
    /// empty tile inside them, 304 when `If-None-Match` names its ETag, else its bytes as
    /// stored (gzip passed through, or inflated for a client that does not accept gzip).
    private func tile(_ name: String, _ z: Int?, _ x: Int?, _ y: Int?, _ ext: String, _ request: TileRequest) -> TileAnswer {
        guard let source = tileset(name) else { return Self.text("no tileset \(name)", status: 404) }
        let m = source.metadata
        let wanted = m.format == .mvt ? ["pbf", "mvt"] : m.format == .jpeg ? ["jpg", "jpeg"] : [m.format.rawValue]
        guard wanted.contains(ext) else { return Self.text("tileset \(name) has .\(wanted[0]) tiles", status: 404) }
        guard let z, let x, let y, z <= m.maxZoom, x < 1 << z, y < 1 << z, m.covers(zoom: z, x: x, y: y) else {
            return Self.text("no tile there: tileset \(name) has zooms \(m.minZoom)…\(m.maxZoom) within its bounds", status: 404)
        }
        let stored: StoredTile?
        do { stored = try source.tile(zoom: z, x: x, y: y) } catch {
            note("\(name): tile \(z)/\(x)/\(y): \(error)")
            return Self.text("tile \(z)/\(x)/\(y) cannot be read", status: 500)
        }
        guard var tile = stored, !tile.bytes.isEmpty else { return TileAnswer(.noContent, headers: [.cacheControl: Self.tileCaching]) }
        if tile.gzipped, !Self.acceptsGzip(request.acceptEncoding) {
            do { tile = StoredTile(bytes: try Gzip.decompress(tile.bytes, limit: Self.inflateLimit), gzipped: false) } catch {
                note("\(name): tile \(z)/\(x)/\(y): gzip: \(error)")
                return Self.text("tile \(z)/\(x)/\(y) cannot be read", status: 500)
            }
        }
        let etag = "\"" + String(Self.contentHash(tile.bytes), radix: 16) + (tile.gzipped ? "-gz\"" : "\"")
        var headers: HTTPFields = [.eTag: etag, .cacheControl: Self.tileCaching, .vary: "Accept-Encoding"]
        if let match = request.ifNoneMatch, Self.matches(match, etag) { return TileAnswer(.notModified, headers: headers) }
        headers[.contentType] = switch m.format {
        case .mvt: "application/vnd.mapbox-vector-tile"
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        }
        if tile.gzipped { headers[.contentEncoding] = "gzip" }
        return TileAnswer(headers: headers, body: ByteBuffer(bytes: tile.bytes))
    }

    /// The archive file, whole or one byte range (RFC 7233): 206 with `Content-Range`, 416
    /// for more than one range or one past the end.
    private func archive(_ source: PMTilesSource, _ request: Request) -> Response {
        let size = source.size
        var range = 0...(size - 1)
        var status = HTTPResponse.Status.ok
        var headers: HTTPFields = [.acceptRanges: "bytes", .contentType: "application/vnd.pmtiles", .cacheControl: "no-cache"]
        if let header = request.headers[.range] {
            do {
                if let asked = try ByteRange.resolve(header, size: size) {
                    range = asked
                    status = .partialContent
                    headers[.contentRange] = "bytes \(asked.lowerBound)-\(asked.upperBound)/\(size)"
                }
            } catch {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        guard size > 0 else { return Response(status: .ok, headers: headers) }
        let note = self.note, chunk = Self.chunkSize, sent = range
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: sent.count) { writer in
            var offset = sent.lowerBound
            while offset <= sent.upperBound {
                let bytes: [UInt8]
                do { bytes = try source.bytes(offset: offset, count: min(chunk, sent.upperBound + 1 - offset)) } catch {
                    note("archive read at byte \(offset): \(error)")
                    throw error
                }
                guard !bytes.isEmpty else { throw TileServerError(.truncated, "the archive ends at byte \(offset), before the range") }
                try await writer.write(ByteBuffer(bytes: bytes))
                offset += bytes.count
            }
            try await writer.finish(nil)
        })
    }

    /// A glyph range of one font stack folder, or of several (`A,B`) combined glyph by glyph,
    /// the first font that has a glyph giving it (as MapLibre's font stacks fall back).
    /// Whether `/fonts/…` serves glyphs: from `--fonts` folders or made from local fonts.
    var servesFonts: Bool { options.fonts != nil || options.localGlyphs != nil }

    private func glyphs(_ stack: String, _ range: String) -> TileAnswer {
        guard servesFonts else { return Self.text("no fonts are served (--fonts, or local fonts)", status: 404) }
        do {
            guard let body = try glyphBytes(stack, range) else { return Self.text("no glyphs \(stack) \(range)", status: 404) }
            return TileAnswer(headers: [.contentType: "application/x-protobuf", .cacheControl: Self.tileCaching], body: ByteBuffer(bytes: body))
        } catch {
            note("fonts \(stack) \(range): \(error)")
            return Self.text("glyphs \(stack) \(range) cannot be read", status: 500)
        }
    }

    /// The glyph PBF of `range` (`N-(N+255)`, N a multiple of 256 below 65536) for a font
    /// stack: from the stack's folders under `--fonts`, else made from local fonts (and kept in
    /// `localGlyphCache`); nil when the range is not one, or neither has the stack.
    /// - Throws: `MapDataError.invalidGlyphs` when a file of a combined stack does not decode;
    ///   what `Options.localGlyphs` throws.
    func glyphBytes(_ stack: String, _ range: String) throws -> [UInt8]? {
        let bounds = range.split(separator: "-", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] % 256 == 0, bounds[1] == bounds[0] + 255, (0...65280).contains(bounds[0]) else { return nil }
        let names = stack.split(separator: ",").map { String($0.drop { $0 == " " }) }
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        let files = options.fonts.map { fonts in names.compactMap { try? FileDescriptor.readContents(of: "\(fonts)/\($0)/\(range).pbf") } } ?? []
        guard let first = files.first else {
            guard let make = options.localGlyphs else { return nil }
            let key = GlyphRangeKey(stack: stack, start: UInt32(bounds[0]))
            if let made = localGlyphCache.bytes(for: key) { return made }
            let made = try make(stack, key.start)
            localGlyphCache.insert(made, for: key)
            return made
        }
        guard names.count > 1 else { return first }
        var glyphs: [UInt32: SDFGlyph] = [:]
        for file in files { for s in try GlyphPBF.decode(file) { for g in s.glyphs where glyphs[g.id] == nil { glyphs[g.id] = g } } }
        return GlyphPBF.encode([GlyphFontStack(name: stack, range: range, glyphs: glyphs.values.sorted { $0.id < $1.id })])
    }

    /// Whether `Accept-Encoding` (RFC 9110 §12.5.3) takes gzip: `gzip` or `*` without `q=0`.
    /// Read in place as bytes, allocating nothing: it is asked on every tile request (as
    /// Characters, then as arrays of bytes per item, it cost 3 % of the server's CPU time under
    /// wrk, `perf`).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard var header else { return false }
        return header.withUTF8 { bytes in
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: 0x2C) ?? bytes.count // ,
                if takesGzip(bytes[start..<end]) { return true }
                start = end + 1
            }
            return false
        }
    }

    private static let gzipCodings: [[UInt8]] = [Array("gzip".utf8), Array("x-gzip".utf8), Array("*".utf8)]

    /// One item of an `Accept-Encoding` list, `coding *( ";" parameter )`: a gzip coding whose
    /// first `q` parameter is not 0 (none is q=1).
    private static func takesGzip(_ item: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        func trimmed(_ s: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
            var s = s
            while let f = s.first, f == 0x20 || f == 0x09 { s.removeFirst() }
            while let l = s.last, l == 0x20 || l == 0x09 { s.removeLast() }
            return s
        }
        func lowered(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b | 0x20 : b }
        var end = item.firstIndex(of: 0x3B) ?? item.endIndex // ;
        let coding = trimmed(item[..<end])
        guard gzipCodings.contains(where: { $0.count == coding.count && zip(coding, $0).allSatisfy { lowered($0) == $1 } }) else { return false }
        while end < item.endIndex {
            let start = item.index(after: end)
            end = item[start...].firstIndex(of: 0x3B) ?? item.endIndex
            let parameter = trimmed(item[start..<end])
            guard parameter.count >= 2, lowered(parameter[parameter.startIndex]) == 0x71, parameter[parameter.startIndex + 1] == 0x3D else { continue } // q=
            return (Double(String(decoding: parameter.dropFirst(2), as: UTF8.self)) ?? 1) > 0
        }
        return true
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, RFC 9110 §13.1.2), or is `*`.
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingCharacters(in: " ")
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            return tag == etag || tag == "*"
        }
    }

    /// A 64-bit tag of the bytes: the tiles' strong ETag (the same bytes, the same tag, across
    /// restarts) and the versions of styles. The byte count above the CRC-32 of the bytes
    /// (`Zlib.crc32`, libdeflate's carry-less multiplication: two versions of one tile of the
    /// same length share a tag with probability 2⁻³²). It replaced a word-wise FNV-1a that took
    /// 2 % of the server's CPU time under wrk (`perf`), hashing about 1 byte per cycle.
    static func contentHash(_ bytes: [UInt8]) -> UInt64 {
        UInt64(bytes.count) << 32 | UInt64(bytes.withUnsafeBytes { Zlib.crc32($0) })
    }

    /// A JSON document as made by `DocumentCache`.
    static func json(_ text: ByteBuffer) -> TileAnswer {
        TileAnswer(headers: [.contentType: "application/json", .cacheControl: "no-cache"], body: text)
    }

    /// A version of what a document is made of: `contentHash` of a style file's bytes (0 for a
    /// document without one), then the tilesets' `ReopeningMapSource` generations.
    static func version(_ generations: [Int], styleHash: UInt64 = 0) -> UInt64 {
        generations.reduce(styleHash) { h, g in (h ^ UInt64(g)) &* 0x100_0000_01b3 }
    }

    static func text(_ body: String, status: Int) -> TileAnswer {
        TileAnswer(.init(code: status), headers: [.contentType: "text/plain; charset=utf-8"], body: ByteBuffer(string: body + "\n"))
    }
}

/// A glyph range made from local fonts: the font stack as requested, and the range's first code point.
struct GlyphRangeKey: Hashable, Sendable {
    var stack: String
    var start: UInt32
}

/// The one error type of TileServer (STYLE.md §3.7): a growable `Code`, a human message.
public typealias TileServerError = CodedError<TileServerErrorDomain>

/// Names TileServerError's codes apart from other modules' (`CodedError`); it has no values.
public enum TileServerErrorDomain {}

extension ErrorCode where Domain == TileServerError {
    /// Two map sources or two styles that would be served under one name.
    public static var duplicateName: Self { Self("duplicate name") }
    /// A style file that is not a JSON object.
    public static var invalidStyle: Self { Self("invalid style") }
    /// A URL the style being drawn names on this server that it does not serve.
    public static var notServed: Self { Self("not served") }
    /// An archive that ended before the byte range being sent.
    public static var truncated: Self { Self("truncated archive") }
    /// Map data that gives no area to draw (`RasterTileFolder`).
    public static var nothingToDraw: Self { Self("nothing to draw") }
    /// Raster tile zoom levels written as neither `Z` nor `ZMIN-ZMAX` in 0…22
    /// (`RasterTileFolder.zooms(parsing:named:)`).
    public static var invalidZooms: Self { Self("invalid zoom levels") }
    /// More raster tiles asked for than allowed (`RasterTileFolder`).
    public static var tooManyTiles: Self { Self("too many tiles") }
    /// A folder for tiles that cannot be created: a file in the way, no permission.
    public static var cannotCreateFolder: Self { Self("cannot create folder") }
    /// A vector tile archive whose tiles cannot be read.
    public static var unreadableArchive: Self { Self("unreadable archive") }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
