import Platform
public import MapRenderer
public import MapStyle

/// One icon of a sprite (spec v8 "Sprite"), by the name styles give `icon-image`.
public struct SpriteIcon: Sendable {
    public enum Source: Sendable {
        /// An SVG document, drawn for each sheet at the sheet's pixel ratio.
        case svg([UInt8])
        /// A raster icon for 1× sheets, and its 2× drawing when there is one; without it, a 2×
        /// sheet shows the 1× image magnified (each pixel a 2 × 2 block).
        case raster(Pixmap, doubled: Pixmap?)
    }

    public let name: String
    public let source: Source

    public init(name: String, source: Source) {
        self.name = name
        self.source = source
    }

    /// The icons of a folder's files, given by path relative to the folder: `NAME.svg`, and
    /// `NAME.png` with its 2× drawing `NAME@2x.png` beside it when there is one. An icon's name
    /// is its path without the extension; other files are left out and returned in `ignored`.
    /// - Throws: `RenderError` naming the file: a PNG that does not decode; `.invalidSprite`
    ///   for a `NAME@2x.png` without `NAME.png` or two files (`NAME.svg`, `NAME.png`) for one
    ///   name (the first by name).
    public static func icons(files: [(path: String, bytes: [UInt8])]) throws(RenderError) -> (icons: [SpriteIcon], ignored: [String]) {
        var svg: [String: [UInt8]] = [:], png: [String: Pixmap] = [:], doubled: [String: (path: String, image: Pixmap)] = [:]
        var ignored: [String] = []
        for (path, bytes) in files {
            let lower = path.lowercased()
            if lower.hasSuffix(".svg") {
                svg[String(path.dropLast(4))] = bytes
            } else if lower.hasSuffix(".png") {
                let image: Pixmap
                do { image = try PNG.decode(bytes) } catch { throw RenderError(error.code, "\(path): \(error.message)", offset: error.offset) }
                let stem = String(path.dropLast(4))
                if stem.hasSuffix("@2x") { doubled[String(stem.dropLast(3))] = (path, image) } else { png[stem] = image }
            } else {
                ignored.append(path)
            }
        }
        for name in doubled.keys.sorted() where png[name] == nil {
            throw RenderError(.invalidSprite, "\(doubled[name]!.path): a 2× drawing without \(name).png beside it")
        }
        var icons: [SpriteIcon] = []
        for (name, document) in svg.sorted(by: { $0.key < $1.key }) {
            guard png[name] == nil else { throw RenderError(.invalidSprite, "\(name).svg and \(name).png both name the icon \(name)") }
            icons.append(SpriteIcon(name: name, source: .svg(document)))
        }
        for (name, image) in png { icons.append(SpriteIcon(name: name, source: .raster(image, doubled: doubled[name]?.image))) }
        return (icons.sorted { $0.name < $1.name }, ignored.sorted())
    }

    /// The icon as drawn for a sheet of `pixelRatio` (1 or 2) image pixels per CSS pixel.
    func image(pixelRatio: Int) throws(RenderError) -> Pixmap {
        switch source {
        case .svg(let document): return try SVG.rasterize(document, scale: Double(pixelRatio), name: name + ".svg")
        case .raster(let one, let two):
            if pixelRatio == 1 { return one }
            if pixelRatio == 2, let two { return two }
            return try one.magnified(by: pixelRatio)
        }
    }
}

/// A sprite sheet: icons packed into one image, and the index (`sprite.json`) that names each
/// one's rectangle, as MapLibre loads them (`NAME.json` + `NAME.png`, `NAME@2x.*` for 2×).
public struct SpriteSheet: Sendable {
    /// Sheet pixels per CSS pixel.
    public let pixelRatio: Int
    public let image: Pixmap
    /// Each icon's rectangle on the sheet, by name.
    public let index: [String: SpriteIndex.Entry]

    /// Free sheet pixels between icons (and right of and below each), so that sampling an icon
    /// with bilinear filtering never reads a neighbour's pixels.
    public static let gap = 2

    /// Draws each icon at `pixelRatio` and packs them in shelves: tallest first (then widest,
    /// then by name, so the same icons always give the same sheet), left to right on a sheet
    /// as wide as the square root of their area or the widest icon, whichever is wider
    /// (the shelf heuristic of potpack and spritezero's packer).
    /// - Throws: `RenderError` naming an icon that cannot be drawn, or `.invalidSize` when the
    ///   sheet would pass 16384 pixels a side.
    public init(icons: [SpriteIcon], pixelRatio: Int) throws(RenderError) {
        guard pixelRatio >= 1 else { throw RenderError(.invalidSize, "pixel ratio \(pixelRatio) is below 1") }
        var drawn: [(name: String, image: Pixmap)] = []
        for icon in icons { drawn.append((icon.name, try icon.image(pixelRatio: pixelRatio))) }
        drawn.sort { a, b in
            (a.image.height, a.image.width) != (b.image.height, b.image.width)
                ? (a.image.height, a.image.width) > (b.image.height, b.image.width) : a.name < b.name
        }
        let gap = Self.gap
        let area = drawn.reduce(0.0) { $0 + Double(($1.image.width + gap) * ($1.image.height + gap)) }
        let width = max(drawn.map { $0.image.width + gap }.max() ?? 1, Int(area.squareRoot().rounded(.up)))
        var places: [(x: Int, y: Int)] = []
        var x = 0, y = 0, shelf = 0, right = 1, bottom = 1
        for (_, image) in drawn {
            if x + image.width + gap > width { (x, y, shelf) = (0, y + shelf, 0) }
            places.append((x, y))
            (right, bottom) = (max(right, x + image.width), max(bottom, y + image.height))
            x += image.width + gap
            shelf = max(shelf, image.height + gap)
        }
        var sheet = try Pixmap(width: right, height: bottom)
        var index: [String: SpriteIndex.Entry] = [:]
        for ((name, image), place) in zip(drawn, places) {
            try sheet.replace(x: place.x, y: place.y, with: image)
            index[name] = SpriteIndex.Entry(x: place.x, y: place.y, width: image.width, height: image.height,
                                            pixelRatio: Double(pixelRatio), sdf: false)
        }
        self.pixelRatio = pixelRatio
        self.image = sheet
        self.index = index
    }

    /// The index as `sprite.json`: an object of entries by name, keys sorted.
    public func indexJSON() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array(try encoder.encode(index)) + [0x0A]
    }
}
