public import GeoCore

/// A style's sprite (spec v8 "Sprite"): which sheets to load and the images each sheet's
/// index (`sprite.json`) names. Pure decoding; the PNG sheets are read by the renderer.
public enum SpriteIndex {
    /// One sheet of a sprite: its URL without extension, and the prefix its images get
    /// (`id:` for sprite arrays, none for a plain URL or the array's `default`).
    public struct Sheet: Sendable, Equatable {
        public let prefix: String
        public let url: String
        public init(prefix: String, url: String) { self.prefix = prefix; self.url = url }
    }

    /// One image of a sheet (the index's entry): its rectangle on the sheet in sheet pixels
    /// and how many of them make one CSS pixel. Encoded with the index's own keys.
    public struct Entry: Sendable, Equatable, Encodable {
        public let x: Int, y: Int, width: Int, height: Int
        public let pixelRatio: Double
        /// An SDF icon (recoloured by `icon-color`).
        public let sdf: Bool
        public init(x: Int, y: Int, width: Int, height: Int, pixelRatio: Double, sdf: Bool) {
            (self.x, self.y, self.width, self.height, self.pixelRatio, self.sdf) = (x, y, width, height, pixelRatio, sdf)
        }
    }

    /// The sheets a style's `sprite` names: a URL string or an array of `{id, url}`.
    public static func sheets(_ sprite: JSONValue?) -> [Sheet] {
        switch sprite {
        case .string(let url)?: return [Sheet(prefix: "", url: url)]
        case .array(let items)?:
            return items.compactMap {
                guard case .object(let o) = $0, case .string(let id)? = o["id"], case .string(let url)? = o["url"] else { return nil }
                return Sheet(prefix: id == "default" ? "" : id + ":", url: url)
            }
        default: return []
        }
    }

    /// The URL of a sheet's index or image (`.json` / `.png`), `@2x` for pixel ratios above 1
    /// (MapLibre's rule); query strings stay after the suffix.
    public static func url(_ sheet: Sheet, pixelRatio: Double, ext: String) -> String {
        let suffix = (pixelRatio > 1 ? "@2x" : "") + "." + ext
        if let q = sheet.url.firstIndex(of: "?") { return sheet.url[..<q] + suffix + sheet.url[q...] }
        return sheet.url + suffix
    }

    /// The entries of a sheet's index that lie inside a `width × height` sheet, by name with
    /// the sheet's prefix; the others are named in `problems` with their JSON path.
    public static func entries(_ json: JSONValue, prefix: String, sheetWidth width: Int, sheetHeight height: Int) -> (entries: [String: Entry], problems: [String]) {
        guard case .object(let o) = json else { return ([:], ["sprite index: object expected"]) }
        var out: [String: Entry] = [:], problems: [String] = []
        for (name, value) in o {
            guard case .object(let e) = value,
                  case .number(let x)? = e["x"], case .number(let y)? = e["y"],
                  case .number(let w)? = e["width"], case .number(let h)? = e["height"],
                  x >= 0, y >= 0, w > 0, h > 0, x + w <= Double(width), y + h <= Double(height),
                  x == x.rounded(), y == y.rounded(), w == w.rounded(), h == h.rounded() else {
                problems.append("\(name): not a rectangle inside the \(width)×\(height) sprite sheet")
                continue
            }
            let ratio: Double = if case .number(let r)? = e["pixelRatio"], r > 0 { r } else { 1 }
            let sdf = if case .bool(true)? = e["sdf"] { true } else { false }
            out[prefix + name] = Entry(x: Int(x), y: Int(y), width: Int(w), height: Int(h), pixelRatio: ratio, sdf: sdf)
        }
        return (out, problems.sorted())
    }
}
