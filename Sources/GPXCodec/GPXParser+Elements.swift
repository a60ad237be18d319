import Platform
import GeoBase
import GeoCore
import XMLStreaming

/// The parser's element readers (points, metadata, links, bounds) and text-content readers
/// (strings, numbers with their ranges, times, extensions), called from its state machine.
extension GPXParser {
    // MARK: - Elements

    mutating func readPathInfoField(into info: inout GPXPathInfo) throws(GPXError) {
        switch tag() {
        case .name: info.name = try readString()
        case .cmt: info.comment = try readString()
        case .desc: info.description = try readString()
        case .src: info.source = try readString()
        case .link: if let link = try readLink() { info.links.append(link) }
        case .url: setURL(try readString(), in: &info.links); usesGPX10Elements = true
        case .urlname: setURLName(try readString(), in: &info.links); usesGPX10Elements = true
        case .number: info.number = try readInteger()
        case .type: info.type = try readString()
        case .extensions: info.extensions = appending(try readExtensions(), to: info.extensions)
        default: info.extensions = appending(try readRawElement(), to: info.extensions)
        }
    }

    /// Reads a waypoint, route point or track point; nil (and a warning) when its `lat` or
    /// `lon` is missing or invalid, after skipping it.
    mutating func readPoint() throws(GPXError) -> GPXPoint? {
        let start = scanner.tokenOffset
        scanner.pinnedOffset = start
        defer { scanner.pinnedOffset = .max }
        do {
            return try readPointBody(start: start)
        } catch {
            guard error.code == .truncated else { throw error }
            let (line, column) = scanner.location(of: start)
            throw GPXError(.truncated, "the point starting here is unfinished: \(error.message)",
                           line: line, column: column, offset: start)
        }
    }

    mutating func readPointBody(start: Int) throws(GPXError) -> GPXPoint? {
        var latRange: Range<Int>?, lonRange: Range<Int>?
        for i in 0..<scanner.attributeCount {
            let a = scanner.attribute(at: i)
            if scanner.equals(a.name, "lat") { latRange = a.value } else if scanner.equals(a.name, "lon") { lonRange = a.value }
        }
        guard let lat = coordinate(latRange, limit: 90), let lon = coordinate(lonRange, limit: 180) else {
            warnPointDropped(latitude: latRange, longitude: lonRange, at: start)
            try skipElement()
            return nil
        }
        // GPX allows lon = 180 (longitudeType is [-180, 180)); Coordinate wants [-180, 180).
        var point = GPXPoint(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon == 180 ? -180 : lon))
        if scanner.selfClosing { return point }
        // A reused buffer for the point's raw extensions (one String allocation per point, none
        // when the read keeps no text).
        pointRaw.reset()
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                // A value left out leaves the field as it was (unset, or an earlier duplicate's).
                // Numbers outside their GPXFieldRanges range are left out with a warning, as malformed ones.
                case .ele: if let v = try readDouble(in: GPXFieldRanges.elevation) { point.elevation = Distance(meters: v) }
                case .time: if let v = try readTime() { point.time = v }
                case .magvar: if let v = try readDouble(in: GPXFieldRanges.degrees) { point.magneticVariation = Bearing(degrees: v) }
                case .geoidheight: if let v = try readDouble(in: GPXFieldRanges.geoidHeight) { point.geoidHeight = Distance(meters: v) }
                case .name: if let v = try readPointText() { point.name = v }
                case .cmt: if let v = try readPointText() { point.comment = v }
                case .desc: if let v = try readPointText() { point.description = v }
                case .src: if let v = try readPointText() { point.source = v }
                // Links are read either way (a missing href is a warning); rare in points.
                case .link: if let link = try readLink(), keepsPointText { point.links.append(link) }
                case .url: if let v = try readPointText() { setURL(v, in: &point.links) }; usesGPX10Elements = true
                case .urlname: if let v = try readPointText() { setURLName(v, in: &point.links) }; usesGPX10Elements = true
                case .sym: if let v = try readPointText() { point.symbol = v }
                case .type: if let v = try readPointText() { point.type = v }
                case .fix: if let v = try readFix() { point.fix = v }
                case .sat: if let v = try readInteger() { point.satellites = v }
                case .hdop: if let v = try readDouble(in: GPXFieldRanges.dilution) { point.hdop = v }
                case .vdop: if let v = try readDouble(in: GPXFieldRanges.dilution) { point.vdop = v }
                case .pdop: if let v = try readDouble(in: GPXFieldRanges.dilution) { point.pdop = v }
                case .ageofdgpsdata: if let v = try readDouble(in: GPXFieldRanges.dgpsAge) { point.ageOfDGPSData = v }
                case .dgpsid: if let v = try readInteger() { point.dgpsID = v }
                case .course:
                    if let v = try readDouble(in: GPXFieldRanges.degrees) { point.course = Bearing(degrees: v) }
                    usesGPX10Elements = true
                case .speed:
                    if let v = try readDouble(in: GPXFieldRanges.speed) { point.speed = Speed(metersPerSecond: v) }
                    usesGPX10Elements = true
                case .extensions:
                    try captureExtensions(checkingGarminFields: true, keeping: keepsPointText)
                    if keepsPointText { pointRaw.append(scanner.captured.bytes) }
                default:
                    guard keepsPointText else { try skipElement(); continue }
                    try captureRawElement()
                    pointRaw.append(scanner.captured.bytes)
                }
            case .endTag:
                if !pointRaw.isEmpty { point.extensions = GPXExtensions(xml: pointRaw.string()) }
                return point
            default:
                continue
            }
        }
    }

    /// A coordinate attribute's value when it is a number in [-limit, limit]; nil otherwise.
    @inline(__always)
    func coordinate(_ r: Range<Int>?, limit: Double) -> Double? {
        guard let r, let v = GPXNumber.double(scanner.buf + r.lowerBound, r.count), v >= -limit, v <= limit else { return nil }
        return v
    }

    /// The warning for a point left out for its `lat` or `lon` (the latitude's problem first),
    /// out of `readPointBody`'s hot path.
    @inline(never)
    mutating func warnPointDropped(latitude: Range<Int>?, longitude: Range<Int>?, at start: Int) {
        let latitudeIsBad = coordinate(latitude, limit: 90) == nil
        let (name, what, limit, range) = latitudeIsBad ? ("lat", "latitude", 90, latitude) : ("lon", "longitude", 180, longitude)
        let element = scanner.nameString
        let raw = range.map { scanner.string($0) } ?? ""
        let problem = range == nil ? "has no \(name) attribute" : "\(name)='\(raw)' is not a \(what) in [-\(limit), \(limit)]"
        warn(.pointDropped, element: element, text: raw, at: start, "<\(element)> \(problem); the point is left out")
    }

    /// A point's text field (name, comment…); nil when the read keeps no text
    /// (`GPXPointFields.measurements`). The text is decoded either way, into the reused byte
    /// buffer, so a bad reference is the same error in both modes; only the String is saved.
    mutating func readPointText() throws(GPXError) -> String? {
        try readText()
        return keepsPointText ? text.string() : nil
    }

    mutating func readMetadata() throws(GPXError) -> GPXMetadata {
        var m = GPXMetadata()
        if scanner.selfClosing { return m }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .name: m.name = try readString()
                case .desc: m.description = try readString()
                case .author: m.author = try readPerson()
                case .copyright: m.copyright = try readCopyright()
                case .link: if let link = try readLink() { m.links.append(link) }
                case .time: m.time = try readTime()
                case .keywords: m.keywords = try readString()
                case .bounds: m.bounds = try readBounds()
                case .extensions: m.extensions = appending(try readExtensions(), to: m.extensions)
                default: m.extensions = appending(try readRawElement(), to: m.extensions)
                }
            case .endTag:
                return m
            default:
                continue
            }
        }
    }

    mutating func readPerson() throws(GPXError) -> GPXPerson {
        var p = GPXPerson()
        if scanner.selfClosing { return p }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .name: p.name = try readString()
                case .email:
                    let id = try attributeString(scanner.attribute("id"))
                    let domain = try attributeString(scanner.attribute("domain"))
                    p.email = "\(id ?? "")@\(domain ?? "")"
                    try skipElement()
                case .link: p.link = try readLink()
                default: try skipElement()
                }
            case .endTag:
                return p
            default:
                continue
            }
        }
    }

    mutating func readCopyright() throws(GPXError) -> GPXCopyright {
        var c = GPXCopyright(author: try attributeString(scanner.attribute("author")) ?? "")
        if scanner.selfClosing { return c }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .year: c.year = try readString()
                case .license: c.license = try readString()
                default: try skipElement()
                }
            case .endTag:
                return c
            default:
                continue
            }
        }
    }

    /// Reads a `<link>`; nil (and a warning) when it has no `href`, after skipping it.
    mutating func readLink() throws(GPXError) -> GPXLink? {
        let offset = scanner.tokenOffset
        guard let href = try attributeString(scanner.attribute("href")) else {
            let element = scanner.nameString
            warn(.missingAttribute, element: element, text: "", at: offset, "<\(element)> has no href attribute; the link is left out")
            try skipElement()
            return nil
        }
        var link = GPXLink(href: href)
        if scanner.selfClosing { return link }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .text: link.text = try readString()
                case .type: link.type = try readString()
                default: try skipElement()
                }
            case .endTag:
                return link
            default:
                continue
            }
        }
    }

    /// Reads `<bounds>`; nil (and a warning) when an attribute is missing or not a number.
    mutating func readBounds() throws(GPXError) -> GPXBounds? {
        let offset = scanner.tokenOffset
        let element = scanner.nameString
        var values: [Double] = []
        for name: StaticString in ["minlat", "minlon", "maxlat", "maxlon"] {
            guard let r = scanner.attribute(name) else {
                warn(.missingAttribute, element: element, text: "", at: offset, "<\(element)> has no \(name) attribute; the bounds are left out")
                break
            }
            guard let v = GPXNumber.double(scanner.buf + r.lowerBound, r.count) else {
                let raw = scanner.string(r)
                warn(raw.isEmpty ? .emptyValue : .invalidValue, element: element, text: raw, at: offset,
                     "<\(element)> \(name)='\(raw)' is not a number; the bounds are left out")
                break
            }
            values.append(v)
        }
        try skipElement()
        guard values.count == 4 else { return nil }
        return GPXBounds(minLatitude: values[0], minLongitude: values[1], maxLatitude: values[2], maxLongitude: values[3])
    }

    func setURL(_ href: String, in links: inout [GPXLink]) {
        if let i = links.indices.last, links[i].href.isEmpty { links[i].href = href } else { links.append(GPXLink(href: href)) }
    }

    func setURLName(_ name: String, in links: inout [GPXLink]) {
        if let i = links.indices.last, links[i].text == nil { links[i].text = name } else { links.append(GPXLink(href: "", text: name)) }
    }

    /// `s` without XML white space (space, tab, line feed, carriage return; XML 1.0 §2.3 `S`)
    /// at either end. On the UTF-8 bytes: the reversed `Character` collections it was written
    /// with cost a process six first-time protocol-conformance lookups (each a scan of the `geo`
    /// binary's ~11,500 conformance records, ~0.17 ms in all) for every GPX file read.
    static func trimmed(_ s: String) -> String {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }
        let bytes = s.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        // Both ends lie next to an ASCII byte or at an end of `s`: whole scalars.
        return String(bytes[first...last]) ?? s
    }

    func appending(_ raw: [UInt8], to existing: GPXExtensions?) -> GPXExtensions? {
        if raw.isEmpty { return existing }
        let s = String(decoding: raw, as: UTF8.self)
        guard let existing else { return GPXExtensions(xml: s) }
        return GPXExtensions(xml: existing.xml + s)
    }

    // MARK: - Text content

    /// Reads the character data of the current simple element into `text` (entities decoded,
    /// CDATA unwrapped, comments dropped, nested elements skipped) and consumes its end tag.
    mutating func readText() throws(GPXError) {
        text.reset()
        if scanner.selfClosing { return }
        let depth = scanner.depth
        while true {
            switch try nextToken(keepingBlankText: true) {
            case .text:
                try decode(scanner.tokenRange, normalizeSpace: false)
            case .cdata:
                let r = scanner.tokenRange
                text.append(scanner.buf + r.lowerBound + 9, count: r.count - 12)
            case .startTag:
                if !scanner.selfClosing { try skipElement() }
            case .endTag:
                if scanner.depth < depth { return }
            default:
                continue
            }
        }
    }

    mutating func readString() throws(GPXError) -> String {
        try readText()
        return text.string()
    }

    /// The one rule for optional values: reads the current element's text and parses it;
    /// text that is empty (white space only) or does not parse gives nil and a warning, and
    /// the caller leaves the field unset.
    /// - Parameter type: what the text should be, for the message ("a number").
    @inline(__always)
    mutating func readValue<Value>(_ type: String, _ parse: (UnsafeBufferPointer<UInt8>) -> Value?) throws(GPXError) -> Value? {
        let offset = scanner.tokenOffset
        // Keep the start tag in the window while the text is read, so a warning can locate it.
        let pinned = scanner.pinnedOffset
        scanner.pinnedOffset = min(pinned, offset)
        defer { scanner.pinnedOffset = pinned }
        try readText()
        if let v = parse(text.bytes) { return v }
        warnBadValue(type, at: offset)
        return nil
    }

    /// The warning of `readValue`, out of its hot path.
    @inline(never)
    mutating func warnBadValue(_ type: String, at offset: Int) {
        // After readText the current token is the element's end tag (or its self-closing start
        // tag): either way its name is the element's.
        let element = scanner.nameString
        let raw = text.string()
        if raw.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\r\n" }) {
            warn(.emptyValue, element: element, text: raw, at: offset, "<\(element)> is empty, not \(type); the field is left out")
        } else {
            warn(.invalidValue, element: element, text: raw, at: offset, "<\(element)> '\(raw)' is not \(type); the field is left out")
        }
    }

    mutating func readDouble() throws(GPXError) -> Double? {
        try readValue("a number") { GPXNumber.double($0.baseAddress!, $0.count) }
    }

    /// A number inside `range`; one outside is warned about and left out like a malformed one.
    mutating func readDouble(in range: ValidRange) throws(GPXError) -> Double? {
        let offset = scanner.tokenOffset
        // Keep the start tag in the window until the range is checked, so the warning can locate it.
        let pinned = scanner.pinnedOffset
        scanner.pinnedOffset = min(pinned, offset)
        defer { scanner.pinnedOffset = pinned }
        guard let v = try readDouble() else { return nil }
        if range.contains(v) { return v }
        warnOutOfRange(range, at: offset)
        return nil
    }

    /// The warning of `readDouble(in:)`, out of its hot path.
    @inline(never)
    mutating func warnOutOfRange(_ range: ValidRange, at offset: Int) {
        let element = scanner.nameString
        let raw = text.string()
        warn(.invalidValue, element: element, text: raw, at: offset, "<\(element)> '\(raw)' is outside \(range); the field is left out")
    }

    mutating func readInteger() throws(GPXError) -> Int? {
        try readValue("an integer") { GPXNumber.integer($0.baseAddress!, $0.count) }
    }

    mutating func readTime() throws(GPXError) -> Date? {
        try readValue("an ISO 8601 time") { ISO8601Time.date(from: $0) }
    }

    mutating func readFix() throws(GPXError) -> GPXFix? {
        try readValue("one of none, 2d, 3d, dgps, pps") { GPXFix(rawValue: Self.trimmed(String(decoding: $0, as: UTF8.self))) }
    }

    mutating func attributeString(_ r: Range<Int>?) throws(GPXError) -> String? {
        guard let r else { return nil }
        text.reset()
        try decode(r, normalizeSpace: true)
        return text.string()
    }

    /// Skips the rest of the current element (its start tag already read).
    mutating func skipElement() throws(GPXError) {
        if scanner.selfClosing { return }
        let depth = scanner.depth
        while true {
            if try nextToken() == .endTag, scanner.depth < depth { return }
        }
    }

    /// Captures the raw bytes inside the current `<extensions>` element into
    /// `scanner.captured` and consumes its end tag.
    ///
    /// With `checkingGarminFields` (a point's extensions), the fields of a Garmin
    /// TrackPointExtension are read as they pass, by the rule of `GarminTrackPointExtension.Field`,
    /// so an empty or invalid one is a warning with its line and column like any optional
    /// field. The raw XML is kept as written; the typed accessor leaves such a field out.
    /// - Parameter keeping: false to read the element (checking the Garmin fields) without
    ///   capturing its bytes.
    mutating func captureExtensions(checkingGarminFields: Bool = false, keeping: Bool = true) throws(GPXError) {
        scanner.captured.reset()
        if scanner.selfClosing { return }
        let depth = scanner.depth
        // The depth of an open TrackPointExtension element, .max when none is open.
        var garminDepth = Int.max
        scanner.capturing = keeping
        defer { scanner.capturing = false }
        while true {
            switch try nextToken() {
            case .endTag:
                if scanner.depth < depth {
                    if keeping { scanner.captured.removeLast(scanner.tokenRange.count) }
                    return
                }
                if scanner.depth < garminDepth { garminDepth = .max }
            case .startTag where checkingGarminFields:
                let name = scanner.localNameRange
                if garminDepth == .max {
                    if !scanner.selfClosing, scanner.equals(name, "TrackPointExtension") { garminDepth = scanner.depth }
                } else if scanner.depth == (scanner.selfClosing ? garminDepth : garminDepth + 1),
                          let field = GarminTrackPointExtension.Field(name: UnsafeBufferPointer(start: scanner.buf + name.lowerBound, count: name.count)) {
                    _ = try readValue(field.expected) { field.value($0) }
                }
            default:
                continue
            }
        }
    }

    mutating func readExtensions() throws(GPXError) -> [UInt8] {
        try captureExtensions()
        return Array(scanner.captured.bytes)
    }

    /// Captures the raw bytes of the whole current element, start and end tags included, into
    /// `scanner.captured`.
    mutating func captureRawElement() throws(GPXError) {
        let r = scanner.tokenRange
        scanner.captured.reset()
        scanner.captured.append(scanner.buf + r.lowerBound, count: r.count)
        if scanner.selfClosing { return }
        let depth = scanner.depth
        scanner.capturing = true
        defer { scanner.capturing = false }
        while true {
            if try nextToken() == .endTag, scanner.depth < depth { return }
        }
    }

    mutating func readRawElement() throws(GPXError) -> [UInt8] {
        try captureRawElement()
        return Array(scanner.captured.bytes)
    }
}
