public import MapRenderer
import MapStyle

/// The sprite of the built-in styles (`DefaultStyle.spriteURL`): the built-in painter's POI
/// icons (`POIIcon`: `poi-CLASS` for each class of a look of its own, `poi` for every other
/// class) and its one-way arrow (`oneway`, pointing east), drawn at 1× and 2× and packed as
/// MapLibre loads a sprite (`SpriteSheet`). Made once per process.
public enum DefaultStyleSprite {
    /// The sheet's index (`sprite.json`) and image (`sprite.png`) at `pixelRatio` 1 or 2.
    public struct Files: Sendable {
        public let json: [UInt8], png: [UInt8]
    }

    /// The sheets at 1× and 2×, or why they could not be made.
    private static let sheets: Result<[Int: Files], RenderError> = Result { () throws(RenderError) in
        var icons: [SpriteIcon] = [SpriteIcon(name: "poi", source: .raster(try POIIcon.image("", pixelRatio: 1), doubled: try POIIcon.image("", pixelRatio: 2)))]
        for c in POIIcon.classes {
            icons.append(SpriteIcon(name: "poi-" + c, source: .raster(try POIIcon.image(c, pixelRatio: 1), doubled: try POIIcon.image(c, pixelRatio: 2))))
        }
        icons.append(SpriteIcon(name: "oneway", source: .raster(try MapPainter.onewayArrowIcon(pixelRatio: 1), doubled: try MapPainter.onewayArrowIcon(pixelRatio: 2))))
        var files: [Int: Files] = [:]
        for ratio in [1, 2] {
            let sheet = try SpriteSheet(icons: icons, pixelRatio: ratio)
            let json: [UInt8]
            do { json = try sheet.indexJSON() } catch { throw RenderError(.invalidSprite, "the built-in sprite's index: \(error)") }
            files[ratio] = Files(json: json, png: try PNG.encode(sheet.image))
        }
        return files
    }

    /// The sheet at `pixelRatio` 1 (any other ratio but 2) or 2.
    /// - Throws: `RenderError` only if the icons could not be drawn or packed (a test guards it).
    public static func files(pixelRatio: Int) throws(RenderError) -> Files {
        try sheets.get()[pixelRatio == 2 ? 2 : 1]!
    }

    /// The bytes of a sprite URL of the built-in styles — `DefaultStyle.spriteURL` followed by
    /// `.json`, `.png`, `@2x.json` or `@2x.png` — or nil for any other URL.
    public static func bytes(at url: String) throws(RenderError) -> [UInt8]? {
        guard url.hasPrefix(DefaultStyle.spriteURL) else { return nil }
        switch url.dropFirst(DefaultStyle.spriteURL.count) {
        case ".json": return try files(pixelRatio: 1).json
        case ".png": return try files(pixelRatio: 1).png
        case "@2x.json": return try files(pixelRatio: 2).json
        case "@2x.png": return try files(pixelRatio: 2).png
        default: return nil
        }
    }
}
