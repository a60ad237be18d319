import Foundation
import GeoCore
import MapData
import MapRenderer
import MapStyle
import OSMImport
import StyleRendering
import Testing

/// The built-in styles (`DefaultStyle`): valid v8, over exactly the layers and fields `geo tiles
/// build` writes, and drawing the legacy renderer's palette where it puts water, parks and roads.
@Suite struct DefaultStyleTests {
    @Test func bothSchemesValidateWithoutAProblem() throws {
        for scheme in DefaultStyle.Scheme.allCases {
            let style = try DefaultStyle.document(scheme)
            #expect(style.diagnostics.map(\.description) == [], "\(scheme)")
            #expect(style.layers.count >= 30, "\(scheme)")
        }
    }

    /// Every `source-layer` is a layer `TileMetadata` lists in `vector_layers` (what `geo tiles
    /// build` writes into every archive), and every feature property a filter, paint or layout
    /// value reads (`get`, `has`) is one of that layer's `fields`.
    @Test func sourceLayersAndFieldsAreTheOnesTilesBuildWrites() throws {
        let metadata = try JSONDecoder().decode(JSONValue.self, from: Data(TileMetadata.json(name: "t", minZoom: 0, maxZoom: 14).utf8))
        guard case .object(let root) = metadata, case .array(let vectorLayers)? = root["vector_layers"] else { Issue.record("no vector_layers"); return }
        var fields: [String: Set<String>] = [:]
        for case .object(let l) in vectorLayers {
            guard case .string(let id)? = l["id"], case .object(let f)? = l["fields"] else { continue }
            fields[id] = Set(f.keys)
        }
        #expect(fields.count == MapLayer.allCases.count)
        for scheme in DefaultStyle.Scheme.allCases {
            guard case .object(let style) = try DefaultStyle.json(scheme), case .array(let layers)? = style["layers"] else { Issue.record("no layers"); return }
            var read = 0
            for case .object(let layer) in layers {
                guard case .string(let id)? = layer["id"] else { continue }
                guard case .string(let sourceLayer)? = layer["source-layer"] else {
                    #expect(layer["type"] == .string("background"), "\(id) has no source-layer")
                    continue
                }
                #expect(layer["source"] == .string(DefaultStyle.sourceID), "\(id)")
                guard let known = fields[sourceLayer] else { Issue.record("\(id): source-layer \(sourceLayer) is not written"); continue }
                for key in ["filter", "paint", "layout"] {
                    for property in Self.propertiesRead(layer[key] ?? .null) {
                        read += 1
                        #expect(known.contains(property), "\(id).\(key) reads \(property), which \(sourceLayer) has not")
                    }
                }
            }
            #expect(read > 50)
        }
    }

    /// The feature properties an expression reads: the string of every `["get", name]` and
    /// `["has", name]` (no object argument).
    private static func propertiesRead(_ value: JSONValue) -> [String] {
        switch value {
        case .array(let a):
            var out: [String] = []
            if a.count == 2, case .string(let op) = a[0], op == "get" || op == "has", case .string(let name) = a[1] { out.append(name) }
            for v in a { out += propertiesRead(v) }
            return out
        case .object(let o): return o.values.flatMap(propertiesRead)
        default: return []
        }
    }

    /// Every colour of the day style has a different one at night, in the same place.
    @Test func nightRecoloursEveryPaintColour() throws {
        let day = Self.paintColours(try DefaultStyle.json(.day)), night = Self.paintColours(try DefaultStyle.json(.night))
        #expect(day.count > 80)
        #expect(day.count == night.count)
        for (d, n) in zip(day, night) { #expect(d.colour != n.colour, "\(d.at) is \(d.colour) by day and by night") }
    }

    private static func paintColours(_ style: JSONValue) -> [(at: String, colour: String)] {
        guard case .object(let root) = style, case .array(let layers)? = root["layers"] else { return [] }
        var out: [(String, String)] = []
        func walk(_ v: JSONValue, _ at: String) {
            switch v {
            case .string(let s) where s.hasPrefix("#"): out.append((at, s))
            case .array(let a): for x in a { walk(x, at) }
            case .object(let o): for k in o.keys.sorted() { walk(o[k]!, at + "." + k) }
            default: break
            }
        }
        for case .object(let l) in layers { if case .string(let id)? = l["id"], let paint = l["paint"] { walk(paint, id) } }
        return out
    }

    /// The seed's switches: a hidden category's layers are `none`, POI layers filter to the
    /// classes shown less those hidden, pedestrian layers are `none` until a class is named.
    @Test func theSeedsSwitchesAreVisibilityAndFiltersOverLayerGroups() throws {
        func layers(_ options: DefaultStyle.Options) throws -> [String: [String: JSONValue]] {
            let style = try DefaultStyle.document(.day, options: options)
            #expect(style.diagnostics.map(\.description) == [])
            guard case .object(let root) = try DefaultStyle.json(.day, options: options), case .array(let list)? = root["layers"] else { return [:] }
            var out: [String: [String: JSONValue]] = [:]
            for case .object(let l) in list { if case .string(let id)? = l["id"] { out[id] = l } }
            return out
        }
        func visibility(_ l: [String: JSONValue]?) -> JSONValue? { if case .object(let o)? = l?["layout"] { o["visibility"] } else { nil } }
        let seed = try layers(DefaultStyle.Options())
        #expect(visibility(seed["pedestrian-steps"]) == .string("none"))
        #expect(visibility(seed["water"]) == nil && visibility(seed["poi"]) == nil)
        var options = DefaultStyle.Options()
        options.hiddenCategories = ["water"]
        options.poiClasses = ["cafe", "fuel"]
        options.hiddenPOIClasses = ["fuel"]
        options.pedestrianClasses = ["steps"]
        let switched = try layers(options)
        for id in ["water", "waterway", "water-name"] { #expect(visibility(switched[id]) == .string("none"), "\(id)") }
        #expect(visibility(switched["pedestrian-steps"]) == .string("visible"))
        let cafesOnly: JSONValue = .array([.string("match"), .array([.string("get"), .string("class")]), .array([.string("cafe")]), .bool(true), .bool(false)])
        #expect(switched["poi"]?["filter"] == cafesOnly)
        #expect(switched["oneway"]?["filter"] == seed["oneway"]?["filter"], "a layer of another group keeps its filter")
        options.poiClasses = ["fuel"]
        #expect(visibility(try layers(options)["poi"]) == .string("none"))
    }

    /// The sample city at the legacy `geo snapshot` view (zoom 16 in 256-pixel tiles, 15 here),
    /// drawn by the legacy painter and by the day style: where the legacy image is water, park
    /// or a primary or minor road fill over a whole 5 × 5 block, the style's image has that
    /// colour within 3 per channel at ≥ 95 % of those pixels (the two rasterizers differ at edges
    /// only). At night the same pixels are darker by at least 60 in summed channels.
    @Test func theDayStyleDrawsTheLegacyPaletteWhereTheLegacyMapDoes() throws {
        let features = try SampleCity.generate().mapFeatures()
        let (w, h) = (480, 360)
        var legacy = Canvas(try Pixmap(width: w, height: h))
        var painter = MapPainter(zoom: 16)
        painter.drawsAttribution = false
        painter.paint(MapFeatureIndex(features), through: try MercatorViewport(center: SampleCity.center, zoom: 16, width: w, height: h), on: &legacy)
        let source = try FeatureMapSource(features: features, name: "sample city")
        func styled(_ scheme: DefaultStyle.Scheme) throws -> Pixmap {
            let style = try DefaultStyle.document(scheme)
            let camera = StyleCamera(longitude: SampleCity.center.longitude, latitude: SampleCity.center.latitude, zoom: 15, width: w, height: h, pixelRatio: 1)
            return try StyleSnapshot(style: style, camera: camera, sources: [DefaultStyle.sourceID: source],
                                     load: DefaultStyleResources(glyphRange: nil).load).image
        }
        let day = try styled(.day), night = try styled(.night)
        let palette = MapRenderer.MapStyle.day
        let looks: [(String, Color)] = [("water", palette.water), ("park", palette.park), ("primary", Color(hex: 0xFCD6A4)), ("minor", .white)]
        for (what, colour) in looks {
            var inside: [(Int, Int)] = []
            for y in 3..<(h - 3) {
                for x in 3..<(w - 3) where legacy.pixmap.color(x: x, y: y) == colour {
                    if (-2...2).allSatisfy({ dy in (-2...2).allSatisfy { dx in legacy.pixmap.color(x: x + dx, y: y + dy) == colour } }) { inside.append((x, y)) }
                }
            }
            #expect(inside.count >= 40, "\(what): \(inside.count) pixels inside")
            let same = inside.filter { p in
                let c = day.color(x: p.0, y: p.1)
                return abs(Int(c.red) - Int(colour.red)) <= 3 && abs(Int(c.green) - Int(colour.green)) <= 3 && abs(Int(c.blue) - Int(colour.blue)) <= 3
            }
            #expect(Double(same.count) >= 0.95 * Double(inside.count), "\(what): \(same.count) of \(inside.count) pixels in the legacy colour")
            let darker = inside.filter { p in
                let d = day.color(x: p.0, y: p.1), n = night.color(x: p.0, y: p.1)
                return Int(d.red) + Int(d.green) + Int(d.blue) - (Int(n.red) + Int(n.green) + Int(n.blue)) >= 60
            }
            #expect(Double(darker.count) >= 0.95 * Double(inside.count), "\(what): \(darker.count) of \(inside.count) pixels darker at night")
        }
    }

    /// The sprite (`DefaultStyleSprite`): the legacy painter's POI icons and one-way arrow at 1×
    /// and 2×. Every class of its own look has its icon, 20 × 20 icon pixels, its disc in the
    /// class colour (`MapStyle.poiColor`) beside the pictogram's white; the arrow 16 × 8.
    @Test func theSpriteHoldsTheLegacyIcons() throws {
        for ratio in [1, 2] {
            let files = try DefaultStyleSprite.files(pixelRatio: ratio)
            let sheet = try PNG.decode(files.png)
            let (entries, problems) = SpriteIndex.entries(try JSONDecoder().decode(JSONValue.self, from: Data(files.json)), prefix: "",
                                                          sheetWidth: sheet.width, sheetHeight: sheet.height)
            #expect(problems.isEmpty, "\(problems)")
            for name in ["poi", "oneway"] + POIIcon.classes.map({ "poi-" + $0 }) {
                let entry = try #require(entries[name], "\(name)")
                #expect(entry.pixelRatio == Double(ratio))
                #expect((entry.width, entry.height) == (name == "oneway" ? (16 * ratio, 8 * ratio) : (20 * ratio, 20 * ratio)), "\(name)")
            }
            for cls in ["cafe", "hospital", "shop"] {
                let e = try #require(entries["poi-" + cls])
                // Just inside the disc's left edge (radius 8 of the 10 − half-square): the class colour.
                let c = sheet.color(x: e.x + 3 * ratio, y: e.y + 10 * ratio)
                #expect(c == MapRenderer.MapStyle.day.poiColor(cls), "\(cls) at \(ratio)×: \(c)")
            }
        }
    }

    /// With every POI class shown, the day style draws the sample city's POIs as the legacy
    /// painter does: where the legacy image has a POI disc's class colour over a 3 × 3 block, the
    /// style's image has it within 3 per channel at ≥ 90 % of those pixels; and one-way arrows
    /// from zoom 16 (15 here), their colour covering 0.5…2 × the legacy image's pixels of it
    /// (placed at MapLibre's spacing, not at the legacy positions).
    @Test func theDayStyleDrawsTheLegacyPOIIconsAndOneWayArrows() throws {
        let features = try SampleCity.generate().mapFeatures()
        let (w, h) = (480, 360)
        var legacy = Canvas(try Pixmap(width: w, height: h))
        var painter = MapPainter(zoom: 16)
        painter.drawsAttribution = false
        painter.style.showsAllPOIs = true
        painter.paint(MapFeatureIndex(features), through: try MercatorViewport(center: SampleCity.center, zoom: 16, width: w, height: h), on: &legacy)
        let source = try FeatureMapSource(features: features, name: "sample city")
        var options = DefaultStyle.Options()
        options.poiClasses = nil
        let camera = StyleCamera(longitude: SampleCity.center.longitude, latitude: SampleCity.center.latitude, zoom: 15, width: w, height: h, pixelRatio: 1)
        let styled = try StyleSnapshot(style: try DefaultStyle.document(.day, options: options), camera: camera, sources: [DefaultStyle.sourceID: source],
                                       load: DefaultStyleResources(glyphRange: nil).load).image
        let palette = MapRenderer.MapStyle.day
        let discs = Set(POIIcon.classes.map { palette.poiColor($0) } + [palette.poiColor("")])
        var inside: [(Int, Int)] = []
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let c = legacy.pixmap.color(x: x, y: y)
                guard discs.contains(c), (-1...1).allSatisfy({ dy in (-1...1).allSatisfy { dx in legacy.pixmap.color(x: x + dx, y: y + dy) == c } }) else { continue }
                inside.append((x, y))
            }
        }
        #expect(inside.count >= 50, "\(inside.count) pixels inside the legacy POI discs")
        let same = inside.filter { p in
            let a = legacy.pixmap.color(x: p.0, y: p.1), b = styled.color(x: p.0, y: p.1)
            return abs(Int(a.red) - Int(b.red)) <= 3 && abs(Int(a.green) - Int(b.green)) <= 3 && abs(Int(a.blue) - Int(b.blue)) <= 3
        }
        #expect(Double(same.count) >= 0.9 * Double(inside.count), "\(same.count) of \(inside.count) POI pixels in the legacy colour")
        let arrow = Color(hex: 0x6C70D5)
        func arrowPixels(_ image: Pixmap) -> Int {
            var n = 0
            for y in 0..<h { for x in 0..<w { let c = image.color(x: x, y: y); if abs(Int(c.red) - 0x6C) + abs(Int(c.green) - 0x70) + abs(Int(c.blue) - 0xD5) <= 30 { n += 1 } } }
            return n
        }
        let (old, new) = (arrowPixels(legacy.pixmap), arrowPixels(styled))
        #expect(old >= 20 && Double(new) >= 0.5 * Double(old) && Double(new) <= 2 * Double(old), "arrow pixels: legacy \(old), style \(new) (\(arrow))")
    }
}
