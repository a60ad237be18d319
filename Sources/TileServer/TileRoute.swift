import GeoBase

/// What a request path asks the tile server for, read from the raw (percent-encoded) path.
/// Each segment is percent-decoded (RFC 3986 §2.1) and refused when it decodes to something a
/// segment cannot be: empty, `.` or `..`, or holding `/` or NUL. So `/../etc/passwd`,
/// `/%2e%2e/…`, `/a%2fb.json` and `/a%00.json` are 400s before any name is looked up, and names
/// are only ever looked up among those the server was given, never joined to a folder — except
/// font stacks, which name folders under `--fonts` and pass the same checks.
enum TileRoute: Equatable {
    /// `/`: the JSON index.
    case index
    /// `/metrics`: Prometheus text.
    case metrics
    /// `/{tileset}.json`: TileJSON 3.0.0.
    case tileJSON(String)
    /// `/{tileset}.pmtiles`: the archive itself, with byte ranges.
    case archive(String)
    /// `/{tileset}/{z}/{x}/{y}.{ext}`; z, x and y as numbers when they are digits (nil when too
    /// large for any grid: such a tile does not exist).
    case tile(String, z: Int?, x: Int?, y: Int?, ext: String)
    /// `/styles/{id}/style.json`.
    case style(String)
    /// `/fonts/{fontstack}/{start}-{end}.pbf`.
    case glyphs(fontStack: String, range: String)
    /// `/sprites/{id}[@2x].{json,png}`.
    case sprite(String, highDensity: Bool, ext: String)
    /// `/styles/{id}/{z}/{x}/{y}[@2x].png`: a raster tile drawn by the style.
    case raster(String, z: Int?, x: Int?, y: Int?, highDensity: Bool)

    /// Why a path is no route: 400 (a segment that cannot be one, z/x/y not decimal digits) or
    /// 404 (nothing of that shape).
    struct Refusal: Error, Equatable {
        let status: Int
        let reason: String
    }

    /// Parses a request path (without its query).
    static func parse(_ rawPath: String) throws(Refusal) -> TileRoute {
        guard rawPath.hasPrefix("/") else { throw Refusal(status: 400, reason: "the path does not start with /") }
        if rawPath == "/" { return .index }
        let raw = rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard raw.count <= 5 else { throw Refusal(status: 404, reason: "no route has \(raw.count) segments") }
        var segments: [String] = []
        for part in raw { segments.append(try segment(part)) }
        switch segments.count {
        case 1:
            let name = segments[0]
            if name == "metrics" { return .metrics }
            if let base = strip(name, ".json") { return .tileJSON(base) }
            if let base = strip(name, ".pmtiles") { return .archive(base) }
        case 2 where segments[0] == "sprites":
            for ext in ["json", "png"] {
                guard let base = strip(segments[1], "." + ext) else { continue }
                if let id = strip(base, "@2x") { return .sprite(id, highDensity: true, ext: ext) }
                return .sprite(base, highDensity: false, ext: ext)
            }
        case 3 where segments[0] == "styles" && segments[2] == "style.json":
            return .style(segments[1])
        case 3 where segments[0] == "fonts":
            if let range = strip(segments[2], ".pbf") { return .glyphs(fontStack: segments[1], range: range) }
        case 5 where segments[0] == "styles":
            guard let file = strip(segments[4], ".png") else { break }
            let y = strip(file, "@2x")
            return .raster(segments[1], z: try number(segments[2]), x: try number(segments[3]), y: try number(y ?? file), highDensity: y != nil)
        case 4:
            let last = segments[3].utf8
            guard let dot = last.lastIndex(of: UInt8(ascii: ".")) else { break }
            let ext = String(Substring(last[last.index(after: dot)...]))
            return .tile(segments[0], z: try number(segments[1]), x: try number(segments[2]), y: try number(String(Substring(last[..<dot]))), ext: ext)
        default: break
        }
        throw Refusal(status: 404, reason: "no such resource")
    }

    /// A tile coordinate: decimal digits only (no sign); nil past 10 digits (no grid of
    /// zoom ≤ 30 has such a column).
    static func number(_ text: String) throws(Refusal) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw Refusal(status: 400, reason: "tile coordinate '\(text)' is not a decimal number")
        }
        return text.utf8.count <= 10 ? Int(text) : nil
    }

    /// One path segment, percent-decoded and checked. A segment without `%` is taken as it
    /// is (a request path is valid UTF-8), so a tile path's four segments cost no decoding.
    static func segment(_ raw: Substring) throws(Refusal) -> String {
        let text = raw.utf8.contains(0x25) ? try decoded(raw) : String(raw)
        guard !text.isEmpty, text != ".", text != "..", !text.utf8.contains(0x2F), !text.utf8.contains(0) else {
            throw Refusal(status: 400, reason: "a path segment that is empty, . or .., or holds / or NUL")
        }
        return text
    }

    /// A segment with its `%XX` escapes decoded (RFC 3986 §2.1; `+` is itself in a path).
    private static func decoded(_ raw: Substring) throws(Refusal) -> String {
        var raw = raw
        // `withUTF8` rethrows untyped, so the failure comes out as a value.
        let decoded = raw.withUTF8 { bytes in Result { () throws(PercentDecoding.Failure) in try PercentDecoding.decode(bytes, plusIsSpace: false) } }
        switch decoded {
        case .success(let text): return text
        case .failure(.badEscape): throw Refusal(status: 400, reason: "a % without two hex digits")
        case .failure(.notUTF8): throw Refusal(status: 400, reason: "a path segment that is not UTF-8")
        }
    }

    /// `text` without `suffix`, when it ends so and something is left. Compared byte by byte
    /// (the suffixes are ASCII, so the cut is between characters): `String.hasSuffix` and
    /// `count` walk grapheme clusters, a third of the route's cost under wrk.
    private static func strip(_ text: String, _ suffix: String) -> String? {
        let t = text.utf8, n = suffix.utf8.count
        guard t.count > n, t.suffix(n).elementsEqual(suffix.utf8) else { return nil }
        return String(Substring(t.dropLast(n)))
    }
}

/// One byte range of a `Range` header (RFC 7233 §2.1, now RFC 9110 §14.1.2), resolved
/// against a representation of `size` bytes.
enum ByteRange {
    /// The bytes asked for, nil when the header is not a `bytes` range (the whole file is
    /// sent, RFC 9110 §14.2: a server may ignore a Range it does not understand).
    /// - Throws: `Unsatisfiable` (→ 416 with `Content-Range: bytes */size`) for more than one
    ///   range (this server sends no multipart/byteranges), a malformed byte range, or one
    ///   that starts at or past the end.
    static func resolve(_ header: String, size: Int) throws(Unsatisfiable) -> ClosedRange<Int>? {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst("bytes=".count)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { throw Unsatisfiable() }
        let first = spec[..<dash].trimmingSpaces(), last = spec[spec.index(after: dash)...].trimmingSpaces()
        func digits(_ s: Substring) -> Int? { s.count <= 18 && !s.isEmpty && s.utf8.allSatisfy { (0x30...0x39).contains($0) } ? Int(s) : nil }
        if first.isEmpty { // suffix range: the last N bytes
            guard let n = digits(last), n > 0, size > 0 else { throw Unsatisfiable() }
            return max(0, size - n)...(size - 1)
        }
        guard let start = digits(first), start < size else { throw Unsatisfiable() }
        if last.isEmpty { return start...(size - 1) }
        guard let end = digits(last), end >= start else { throw Unsatisfiable() }
        return start...min(end, size - 1)
    }

    struct Unsatisfiable: Error {}
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        guard let a = firstIndex(where: { $0 != " " }), let b = lastIndex(where: { $0 != " " }) else { return "" }
        return self[a...b]
    }
}
