public import GeoCore
import Platform

/// The default map look as MapLibre v8 styles: the Carto-like day style the legacy renderer
/// draws (MapRenderer's `MapStyle`, `MapPainter`, `Labels`) and a night variant (the seed's
/// map schemes), over the OpenMapTiles-shaped layers `geo tiles build` writes (MapData's
/// `MapSchema`: `water`, `waterway`, `landcover`, `landuse`, `park`, `building`,
/// `transportation`, `transportation_name`, `boundary`, `place`, `poi`, `pedestrian`).
///
/// The look's numbers are the legacy renderer's, turned into MapLibre's conventions: its zoom
/// counts 256-pixel tiles, MapLibre's a 512-pixel world, so legacy zoom L is style zoom L − 1
/// (roads `width × 2^(L − 16)` wide are `width × 2^(z − 15)` here, as exponential-2 curves with
/// the legacy minimum widths; buildings from z13, their outlines from z14); dashes given in
/// pixels there are in line widths here; point labels sit with their baseline on the point, as
/// the legacy labels do (`text-offset` −0.35 em). POIs are the legacy painter's pictograms in their
/// class colours and one-way streets get its arrows from style zoom 15, both as icons of the
/// sprite `spriteURL` (StyleRendering's `DefaultStyleSprite`) placed with collisions, the
/// arrows below every label as the legacy painter places them after the labels; the
/// attribution is left to the map that shows the style.
///
/// Every layer carries `metadata["locationkit:category"]`, the group it belongs to: the seed's
/// layer categories (`MapCategory` raw values: `water`, `landuse`, `parks`, `buildings`,
/// `roads`, `railways`, `boundaries`, `places`, `street-names`), `pois`, `pedestrian` (hidden
/// by default, as the seed's pedestrian features are) and `land` (the background).
///
/// The styles are Swift string constants, not package resources: SwiftPM resources live in a
/// bundle folder looked up beside the executable at run time (`Bundle.module`), which a
/// statically linked `geo` copied on its own does not have, and this module reads no files.
public enum DefaultStyle {
    /// The map scheme: the seed's normal day and night looks.
    public enum Scheme: String, CaseIterable, Sendable {
        case day, night

        /// The name `geo snapshot --style` takes for it: `default` (or `default-day`) and
        /// `default-night` (or `night`); nil for any other name.
        public init?(styleName: String) {
            switch styleName {
            case "default", "default-day": self = .day
            case "default-night", "night": self = .night
            default: return nil
            }
        }
    }

    /// The id of the styles' one vector source.
    public static let sourceID = "openmaptiles"
    /// The glyph URL prefix: `local://glyphs/{fontstack}/{range}.pbf`, resolved by the host
    /// (from local fonts, as `geo glyphs build` makes ranges).
    public static let glyphURLPrefix = "local://glyphs/"
    /// The sprite (POI icons `poi-CLASS` and `poi`, the one-way arrow `oneway`), resolved by the
    /// host (StyleRendering's `DefaultStyleSprite`).
    public static let spriteURL = "local://sprites/default"
    /// The key of a layer's `metadata` that names its group.
    public static let categoryKey = "locationkit:category"

    /// What the style shows: the seed's switches (layer categories, POI categories, pedestrian
    /// features) as visibility and filters over the layer groups. The defaults are the seed's:
    /// everything but pedestrian features.
    public struct Options: Sendable, Equatable {
        /// Layer groups not drawn (`metadata["locationkit:category"]` values; see `DefaultStyle`).
        public var hiddenCategories: Set<String> = []
        /// The `poi` classes drawn; nil draws every class.
        public var poiClasses: Set<String>? = nil
        /// The `poi` classes not drawn whatever `poiClasses` says (the seed's
        /// `setVisibility:NO forPoiCategory:`).
        public var hiddenPOIClasses: Set<String> = []
        /// The `pedestrian` classes drawn ("footway", "steps", "crossing", "elevator", …); nil
        /// draws every class; none by default, as in the seed.
        public var pedestrianClasses: Set<String>? = []

        public init() {}
    }

    /// The style of `scheme` as JSON text with sorted keys (`JSONEncoder.stable()`), as `geo
    /// style default` prints it.
    /// - Throws: as ``json(_:options:)``; the encoder's error.
    public static func jsonText(_ scheme: Scheme) throws -> String {
        String(decoding: try JSONEncoder.stable().encode(try json(scheme)), as: UTF8.self)
    }

    /// The style of `scheme` as JSON, showing what `options` says.
    /// - Throws: `StyleDocumentError` only if the embedded text were not JSON (a test guards it).
    public static func json(_ scheme: Scheme, options: Options = Options()) throws(StyleDocumentError) -> JSONValue {
        let day: JSONValue
        do { day = try JSONValue(parsing: Array(dayText.utf8)) } catch {
            throw StyleDocumentError(path: "", message: "the embedded default style is not JSON")
        }
        return showing(options, in: scheme == .day ? day : night(from: day))
    }

    /// The style of `scheme`, decoded, showing what `options` says.
    public static func document(_ scheme: Scheme, options: Options = Options()) throws(StyleDocumentError) -> StyleDocument {
        try StyleDocument(json: try json(scheme, options: options))
    }

    /// `style` with each layer's visibility and filter set after `options`: a hidden group's
    /// layers `none`; `pois` and `pedestrian` layers filtered to the classes shown (`none` when
    /// no class is), pedestrian layers made visible when some class is.
    static func showing(_ options: Options, in style: JSONValue) -> JSONValue {
        guard case .object(var root) = style, case .array(let layers)? = root["layers"] else { return style }
        root["layers"] = .array(layers.map { layer in
            guard case .object(var l) = layer, case .object(let metadata)? = l["metadata"], case .string(let category)? = metadata[categoryKey] else { return layer }
            var layout: [String: JSONValue] = if case .object(let o)? = l["layout"] { o } else { [:] }
            var shown: Set<String>?, hidden: Set<String> = []
            switch category {
            case "pois": (shown, hidden) = (options.poiClasses, options.hiddenPOIClasses)
            case "pedestrian": shown = options.pedestrianClasses
            default: break
            }
            let visible = !options.hiddenCategories.contains(category) && shown.map { !$0.subtracting(hidden).isEmpty } ?? true
            if category == "pedestrian" || !visible { layout["visibility"] = .string(visible ? "visible" : "none") }
            if visible {
                var conditions: [JSONValue] = l["filter"].map { [$0] } ?? []
                func classIn(_ classes: Set<String>) -> JSONValue {
                    .array([.string("match"), .array([.string("get"), .string("class")]), .array(classes.sorted().map(JSONValue.string)), .bool(true), .bool(false)])
                }
                if let shown { conditions.append(classIn(shown.subtracting(hidden))) }
                else if !hidden.isEmpty { conditions.append(.array([.string("!"), classIn(hidden)])) }
                if conditions.count > 1 { l["filter"] = .array([.string("all")] + conditions) }
                else if let only = conditions.first { l["filter"] = only }
            }
            if !layout.isEmpty { l["layout"] = .object(layout) }
            return .object(l)
        })
        return .object(root)
    }

    /// The night style: the day style's layers with each colour of `nightColors`, text halos
    /// all `nightHalo`, and the night's name and scheme.
    static func night(from day: JSONValue) -> JSONValue {
        guard case .object(var root) = day, case .array(let layers)? = root["layers"] else { return day }
        root["name"] = .string("LocationKit default (night)")
        root["metadata"] = .object(["locationkit:scheme": .string("night")])
        root["layers"] = .array(layers.map { layer in
            guard case .object(var l) = layer, case .object(var paint)? = l["paint"] else { return layer }
            for (key, value) in paint {
                paint[key] = key == "text-halo-color" ? .string(nightHalo) : recoloured(value)
            }
            l["paint"] = .object(paint)
            return .object(l)
        })
        return .object(root)
    }

    /// `value` with every string that is a day colour replaced by its night colour.
    private static func recoloured(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let s): .string(nightColors[s] ?? s)
        case .array(let a): .array(a.map(recoloured))
        case .object(let o): .object(o.mapValues(recoloured))
        default: value
        }
    }

    /// The halo of every label at night (the day's is white).
    static let nightHalo = "#1E2126"

    /// Each colour of the day style and its night colour: a dark blue-grey land, darker water
    /// and greens, roads muted to their hue, light text (HERE's "normal.night" scheme in spirit).
    static let nightColors: [String: String] = [
        "#F2EFE9": "#2B2F36",
        "#AAD3DF": "#1B3B52",
        "#C8FACC": "#2A4234",
        "#D9D0C9": "#3B3F47",
        "#C4B6AB": "#4A4F59",
        "#ADD19E": "#2C4431",
        "#CDEBB0": "#31463A",
        "#EEF0D5": "#34382F",
        "#D6E9E0": "#2E3F3E",
        "#F5E9C6": "#3D3A2F",
        "#E8E3DC": "#393836",
        "#DDECEC": "#384447",
        "#E0DFDF": "#32353C",
        "#F2DAD9": "#3C3439",
        "#EBDBE8": "#38333D",
        "#AACBAF": "#2F4238",
        "#F3E3DD": "#3E3636",
        "#D0D0D0": "#393939",
        "#FFFFE5": "#3A3A33",
        "#AAE0CB": "#2B4540",
        "#E892A2": "#A85D6E",
        "#F9B29C": "#A8705C",
        "#FCD6A4": "#937A55",
        "#F7FABF": "#7D7F5C",
        "#FFFFFF": "#5B606B",
        "#DDDDE8": "#4B4D5D",
        "#996600": "#8C6D3C",
        "#0000FF": "#8090FF",
        "#DC2A67": "#5E1F36",
        "#C84E2F": "#5A2A1F",
        "#A06B00": "#4B3B12",
        "#707D05": "#3B4012",
        "#8F8F8F": "#1D2025",
        "#BBBBBB": "#202329",
        "#999999": "#24272E",
        "#F5CED5": "#7A5560",
        "#FCDCD2": "#7A6158",
        "#FEEDD6": "#6E6352",
        "#FBFDE2": "#62634F",
        "#F0F0F5": "#474955",
        "#D1BA8C": "#6E5E42",
        "#8C8CFF": "#6670C0",
        "#707070": "#8A8F99",
        "#A0A0A0": "#5E636C",
        "#8D618B": "#B58AB3",
        "#FA8072": "#D9796E",
        "#666666": "#A3A8B0",
        "#222222": "#E6E8EB",
        "#333333": "#C9CDD3",
        "#1A6D9A": "#7DB7D9",
        "#2E7D32": "#8BCB8E",
        "#C77400": "#E69A3C",
        "#0092DA": "#4DB6EA",
        "#BF0000": "#F06A6A",
        "#734A08": "#C9A46A",
        "#AC39AC": "#D77FD7",
        "#0E5BA8": "#6FA3E0",
        "#39AC39": "#6CCB6C",
    ]

    /// The day style, one layer a line, bottom first.
    static let dayText = #"""
{"version": 8, "name": "LocationKit default (day)", "metadata": {"locationkit:scheme": "day"}, "sources": {"openmaptiles": {"type": "vector", "tiles": ["local://tiles/{z}/{x}/{y}.pbf"], "minzoom": 0, "maxzoom": 14, "attribution": "© OpenStreetMap contributors"}}, "glyphs": "local://glyphs/{fontstack}/{range}.pbf", "sprite": "local://sprites/default",
 "layers": [
  {"id": "land", "type": "background", "paint": {"background-color": "#F2EFE9"}, "metadata": {"locationkit:category": "land"}},
  {"id": "landcover", "type": "fill", "source": "openmaptiles", "source-layer": "landcover", "filter": ["match", ["get", "class"], ["wood", "grass", "farmland", "wetland", "sand", "rock", "ice"], true, false], "paint": {"fill-color": ["match", ["get", "class"], "wood", "#ADD19E", ["grass"], "#CDEBB0", "farmland", "#EEF0D5", "wetland", "#D6E9E0", "sand", "#F5E9C6", "rock", "#E8E3DC", "#DDECEC"]}, "metadata": {"locationkit:category": "landuse"}},
  {"id": "landuse", "type": "fill", "source": "openmaptiles", "source-layer": "landuse", "filter": ["match", ["get", "class"], ["residential", "commercial", "retail", "industrial", "railway", "quarry", "garages", "construction", "brownfield", "cemetery", "military", "religious", "school", "university", "college", "kindergarten", "hospital", "stadium", "pitch", "track", "playground", "theme_park", "zoo"], true, false], "paint": {"fill-color": ["match", ["get", "class"], "residential", "#E0DFDF", ["commercial", "retail"], "#F2DAD9", ["industrial", "railway", "quarry", "garages", "construction", "brownfield"], "#EBDBE8", "cemetery", "#AACBAF", "military", "#F3E3DD", "religious", "#D0D0D0", ["school", "university", "college", "kindergarten", "hospital"], "#FFFFE5", "#AAE0CB"]}, "metadata": {"locationkit:category": "landuse"}},
  {"id": "park", "type": "fill", "source": "openmaptiles", "source-layer": "park", "paint": {"fill-color": "#C8FACC"}, "metadata": {"locationkit:category": "parks"}},
  {"id": "water", "type": "fill", "source": "openmaptiles", "source-layer": "water", "paint": {"fill-color": "#AAD3DF"}, "metadata": {"locationkit:category": "water"}},
  {"id": "waterway", "type": "line", "source": "openmaptiles", "source-layer": "waterway", "paint": {"line-color": "#AAD3DF", "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, ["match", ["get", "class"], "river", 0.7, "canal", 0.7, 0.7], 10, ["match", ["get", "class"], "river", 0.7, "canal", 0.7, 0.7], 12, ["match", ["get", "class"], "river", 0.75, "canal", 0.7, 0.7], 13, ["match", ["get", "class"], "river", 1.5, "canal", 1.25, 0.7], 14, ["match", ["get", "class"], "river", 3.0, "canal", 2.5, 1.25], 15, ["match", ["get", "class"], "river", 6.0, "canal", 5.0, 2.5], 16, ["match", ["get", "class"], "river", 12.0, "canal", 10.0, 5.0], 17, ["match", ["get", "class"], "river", 24.0, "canal", 20.0, 10.0], 18, ["match", ["get", "class"], "river", 48.0, "canal", 40.0, 20.0], 20, ["match", ["get", "class"], "river", 192.0, "canal", 160.0, 80.0]]}, "metadata": {"locationkit:category": "water"}},
  {"id": "building", "type": "fill", "source": "openmaptiles", "source-layer": "building", "minzoom": 13, "paint": {"fill-color": "#D9D0C9", "fill-antialias": true}, "metadata": {"locationkit:category": "buildings"}},
  {"id": "building-outline", "type": "line", "source": "openmaptiles", "source-layer": "building", "minzoom": 14, "paint": {"line-color": "#C4B6AB", "line-width": 0.6}, "layout": {"line-join": "miter"}, "metadata": {"locationkit:category": "buildings"}},
  {"id": "tunnel-casing", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "pedestrian", "service"], true, false], ["==", ["get", "brunnel"], "tunnel"]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#DC2A67", "trunk", "#C84E2F", "primary", "#A06B00", "secondary", "#707D05", "tertiary", "#8F8F8F", "minor", "#BBBBBB", "pedestrian", "#999999", "#BBBBBB"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 1.8, 10, 1.8, 12, ["match", ["get", "class"], "motorway", 2.5, "trunk", 2.375, "primary", 2.25, "secondary", 2.125, "tertiary", 2.0, "minor", 1.812, 1.8], 13, ["match", ["get", "class"], "motorway", 4.5, "trunk", 4.25, "primary", 4.0, "secondary", 3.75, "tertiary", 3.2, "minor", 2.625, "pedestrian", 2.375, 1.875], 14, ["match", ["get", "class"], "motorway", 9.0, "trunk", 8.5, "primary", 8.0, "secondary", 7.5, "tertiary", 6.4, "minor", 5.25, "pedestrian", 4.75, 3.75], 15, ["match", ["get", "class"], "motorway", 15.0, "trunk", 14.0, "primary", 13.0, "secondary", 12.0, "tertiary", 10.4, "minor", 8.5, "pedestrian", 7.5, 5.5], 16, ["match", ["get", "class"], "motorway", 27.0, "trunk", 25.0, "primary", 23.0, "secondary", 21.0, "tertiary", 18.4, "minor", 15.0, "pedestrian", 13.0, 9.0], 17, ["match", ["get", "class"], "motorway", 51.0, "trunk", 47.0, "primary", 43.0, "secondary", 39.0, "tertiary", 34.4, "minor", 28.0, "pedestrian", 24.0, 16.0], 18, ["match", ["get", "class"], "motorway", 99.0, "trunk", 91.0, "primary", 83.0, "secondary", 75.0, "tertiary", 66.4, "minor", 54.0, "pedestrian", 46.0, 30.0], 20, ["match", ["get", "class"], "motorway", 387.0, "trunk", 355.0, "primary", 323.0, "secondary", 291.0, "tertiary", 258.4, "minor", 210.0, "pedestrian", 178.0, 114.0]], "line-dasharray": [0.5, 0.3]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "tunnel-fill", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "pedestrian", "service"], true, false], ["==", ["get", "brunnel"], "tunnel"]], "layout": {"line-join": "round", "line-cap": "round", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#F5CED5", "trunk", "#FCDCD2", "primary", "#FEEDD6", "secondary", "#FBFDE2", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#F0F0F5", "track", "#D1BA8C", "#8C8CFF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 0.8, 10, 0.8, 12, ["match", ["get", "class"], "motorway", 1.5, "trunk", 1.375, "primary", 1.25, "secondary", 1.125, "tertiary", 1.0, "minor", 0.812, 0.8], 13, ["match", ["get", "class"], "motorway", 3.0, "trunk", 2.75, "primary", 2.5, "secondary", 2.25, "tertiary", 2.0, "minor", 1.625, "pedestrian", 1.375, 0.875], 14, ["match", ["get", "class"], "motorway", 6.0, "trunk", 5.5, "primary", 5.0, "secondary", 4.5, "tertiary", 4.0, "minor", 3.25, "pedestrian", 2.75, 1.75], 15, ["match", ["get", "class"], "motorway", 12.0, "trunk", 11.0, "primary", 10.0, "secondary", 9.0, "tertiary", 8.0, "minor", 6.5, "pedestrian", 5.5, 3.5], 16, ["match", ["get", "class"], "motorway", 24.0, "trunk", 22.0, "primary", 20.0, "secondary", 18.0, "tertiary", 16.0, "minor", 13.0, "pedestrian", 11.0, 7.0], 17, ["match", ["get", "class"], "motorway", 48.0, "trunk", 44.0, "primary", 40.0, "secondary", 36.0, "tertiary", 32.0, "minor", 26.0, "pedestrian", 22.0, 14.0], 18, ["match", ["get", "class"], "motorway", 96.0, "trunk", 88.0, "primary", 80.0, "secondary", 72.0, "tertiary", 64.0, "minor", 52.0, "pedestrian", 44.0, 28.0], 20, ["match", ["get", "class"], "motorway", 384.0, "trunk", 352.0, "primary", 320.0, "secondary", 288.0, "tertiary", 256.0, "minor", 208.0, "pedestrian", 176.0, 112.0]]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "tunnel-track", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["track"], true, false], ["==", ["get", "brunnel"], "tunnel"]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#F5CED5", "trunk", "#FCDCD2", "primary", "#FEEDD6", "secondary", "#FBFDE2", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#F0F0F5", "track", "#D1BA8C", "#8C8CFF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 1.2, 10, 1.2, 12, 1.2, 13, 1.2, 14, 1.2, 15, 1.6, 16, 3.2, 17, 6.4, 18, 12.8, 20, 51.2], "line-dasharray": [4, 2.5]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "tunnel-path", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["path"], true, false], ["==", ["get", "brunnel"], "tunnel"]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#F5CED5", "trunk", "#FCDCD2", "primary", "#FEEDD6", "secondary", "#FBFDE2", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#F0F0F5", "track", "#D1BA8C", "#8C8CFF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 0.9, 10, 0.9, 12, 0.9, 13, 0.9, 14, 0.9, 15, 1.2, 16, 2.4, 17, 4.8, 18, 9.6, 20, 38.4], "line-dasharray": [3.3, 2.2]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "tunnel-rail", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "rail"], ["==", ["get", "brunnel"], "tunnel"]], "paint": {"line-color": "#A0A0A0", "line-width": 3}, "metadata": {"locationkit:category": "railways"}},
  {"id": "tunnel-rail-hatching", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "rail"], ["==", ["get", "brunnel"], "tunnel"]], "paint": {"line-color": "#FFFFFF", "line-width": 1.5, "line-dasharray": [4, 4]}, "metadata": {"locationkit:category": "railways"}},
  {"id": "tunnel-transit", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "transit"], ["==", ["get", "brunnel"], "tunnel"]], "paint": {"line-color": "#A0A0A0", "line-width": 1.5}, "metadata": {"locationkit:category": "railways"}},
  {"id": "road-casing", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "pedestrian", "service"], true, false], ["!", ["match", ["get", "brunnel"], ["tunnel", "bridge"], true, false]]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#DC2A67", "trunk", "#C84E2F", "primary", "#A06B00", "secondary", "#707D05", "tertiary", "#8F8F8F", "minor", "#BBBBBB", "pedestrian", "#999999", "#BBBBBB"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 1.8, 10, 1.8, 12, ["match", ["get", "class"], "motorway", 2.5, "trunk", 2.375, "primary", 2.25, "secondary", 2.125, "tertiary", 2.0, "minor", 1.812, 1.8], 13, ["match", ["get", "class"], "motorway", 4.5, "trunk", 4.25, "primary", 4.0, "secondary", 3.75, "tertiary", 3.2, "minor", 2.625, "pedestrian", 2.375, 1.875], 14, ["match", ["get", "class"], "motorway", 9.0, "trunk", 8.5, "primary", 8.0, "secondary", 7.5, "tertiary", 6.4, "minor", 5.25, "pedestrian", 4.75, 3.75], 15, ["match", ["get", "class"], "motorway", 15.0, "trunk", 14.0, "primary", 13.0, "secondary", 12.0, "tertiary", 10.4, "minor", 8.5, "pedestrian", 7.5, 5.5], 16, ["match", ["get", "class"], "motorway", 27.0, "trunk", 25.0, "primary", 23.0, "secondary", 21.0, "tertiary", 18.4, "minor", 15.0, "pedestrian", 13.0, 9.0], 17, ["match", ["get", "class"], "motorway", 51.0, "trunk", 47.0, "primary", 43.0, "secondary", 39.0, "tertiary", 34.4, "minor", 28.0, "pedestrian", 24.0, 16.0], 18, ["match", ["get", "class"], "motorway", 99.0, "trunk", 91.0, "primary", 83.0, "secondary", 75.0, "tertiary", 66.4, "minor", 54.0, "pedestrian", 46.0, 30.0], 20, ["match", ["get", "class"], "motorway", 387.0, "trunk", 355.0, "primary", 323.0, "secondary", 291.0, "tertiary", 258.4, "minor", 210.0, "pedestrian", 178.0, 114.0]]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "road-fill", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "pedestrian", "service"], true, false], ["!", ["match", ["get", "brunnel"], ["tunnel", "bridge"], true, false]]], "layout": {"line-join": "round", "line-cap": "round", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#E892A2", "trunk", "#F9B29C", "primary", "#FCD6A4", "secondary", "#F7FABF", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#DDDDE8", "track", "#996600", "#0000FF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 0.8, 10, 0.8, 12, ["match", ["get", "class"], "motorway", 1.5, "trunk", 1.375, "primary", 1.25, "secondary", 1.125, "tertiary", 1.0, "minor", 0.812, 0.8], 13, ["match", ["get", "class"], "motorway", 3.0, "trunk", 2.75, "primary", 2.5, "secondary", 2.25, "tertiary", 2.0, "minor", 1.625, "pedestrian", 1.375, 0.875], 14, ["match", ["get", "class"], "motorway", 6.0, "trunk", 5.5, "primary", 5.0, "secondary", 4.5, "tertiary", 4.0, "minor", 3.25, "pedestrian", 2.75, 1.75], 15, ["match", ["get", "class"], "motorway", 12.0, "trunk", 11.0, "primary", 10.0, "secondary", 9.0, "tertiary", 8.0, "minor", 6.5, "pedestrian", 5.5, 3.5], 16, ["match", ["get", "class"], "motorway", 24.0, "trunk", 22.0, "primary", 20.0, "secondary", 18.0, "tertiary", 16.0, "minor", 13.0, "pedestrian", 11.0, 7.0], 17, ["match", ["get", "class"], "motorway", 48.0, "trunk", 44.0, "primary", 40.0, "secondary", 36.0, "tertiary", 32.0, "minor", 26.0, "pedestrian", 22.0, 14.0], 18, ["match", ["get", "class"], "motorway", 96.0, "trunk", 88.0, "primary", 80.0, "secondary", 72.0, "tertiary", 64.0, "minor", 52.0, "pedestrian", 44.0, 28.0], 20, ["match", ["get", "class"], "motorway", 384.0, "trunk", 352.0, "primary", 320.0, "secondary", 288.0, "tertiary", 256.0, "minor", 208.0, "pedestrian", 176.0, 112.0]]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "road-track", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["track"], true, false], ["!", ["match", ["get", "brunnel"], ["tunnel", "bridge"], true, false]]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#E892A2", "trunk", "#F9B29C", "primary", "#FCD6A4", "secondary", "#F7FABF", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#DDDDE8", "track", "#996600", "#0000FF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 1.2, 10, 1.2, 12, 1.2, 13, 1.2, 14, 1.2, 15, 1.6, 16, 3.2, 17, 6.4, 18, 12.8, 20, 51.2], "line-dasharray": [4, 2.5]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "road-path", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["path"], true, false], ["!", ["match", ["get", "brunnel"], ["tunnel", "bridge"], true, false]]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#E892A2", "trunk", "#F9B29C", "primary", "#FCD6A4", "secondary", "#F7FABF", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#DDDDE8", "track", "#996600", "#0000FF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 0.9, 10, 0.9, 12, 0.9, 13, 0.9, 14, 0.9, 15, 1.2, 16, 2.4, 17, 4.8, 18, 9.6, 20, 38.4], "line-dasharray": [3.3, 2.2]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "road-rail", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "rail"], ["!", ["match", ["get", "brunnel"], ["tunnel", "bridge"], true, false]]], "paint": {"line-color": "#707070", "line-width": 3}, "metadata": {"locationkit:category": "railways"}},
  {"id": "road-rail-hatching", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "rail"], ["!", ["match", ["get", "brunnel"], ["tunnel", "bridge"], true, false]]], "paint": {"line-color": "#FFFFFF", "line-width": 1.5, "line-dasharray": [4, 4]}, "metadata": {"locationkit:category": "railways"}},
  {"id": "road-transit", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "transit"], ["!", ["match", ["get", "brunnel"], ["tunnel", "bridge"], true, false]]], "paint": {"line-color": "#707070", "line-width": 1.5}, "metadata": {"locationkit:category": "railways"}},
  {"id": "bridge-casing", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "pedestrian", "service"], true, false], ["==", ["get", "brunnel"], "bridge"]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#DC2A67", "trunk", "#C84E2F", "primary", "#A06B00", "secondary", "#707D05", "tertiary", "#8F8F8F", "minor", "#BBBBBB", "pedestrian", "#999999", "#BBBBBB"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 1.8, 10, 1.8, 12, ["match", ["get", "class"], "motorway", 2.5, "trunk", 2.375, "primary", 2.25, "secondary", 2.125, "tertiary", 2.0, "minor", 1.812, 1.8], 13, ["match", ["get", "class"], "motorway", 4.5, "trunk", 4.25, "primary", 4.0, "secondary", 3.75, "tertiary", 3.2, "minor", 2.625, "pedestrian", 2.375, 1.875], 14, ["match", ["get", "class"], "motorway", 9.0, "trunk", 8.5, "primary", 8.0, "secondary", 7.5, "tertiary", 6.4, "minor", 5.25, "pedestrian", 4.75, 3.75], 15, ["match", ["get", "class"], "motorway", 15.0, "trunk", 14.0, "primary", 13.0, "secondary", 12.0, "tertiary", 10.4, "minor", 8.5, "pedestrian", 7.5, 5.5], 16, ["match", ["get", "class"], "motorway", 27.0, "trunk", 25.0, "primary", 23.0, "secondary", 21.0, "tertiary", 18.4, "minor", 15.0, "pedestrian", 13.0, 9.0], 17, ["match", ["get", "class"], "motorway", 51.0, "trunk", 47.0, "primary", 43.0, "secondary", 39.0, "tertiary", 34.4, "minor", 28.0, "pedestrian", 24.0, 16.0], 18, ["match", ["get", "class"], "motorway", 99.0, "trunk", 91.0, "primary", 83.0, "secondary", 75.0, "tertiary", 66.4, "minor", 54.0, "pedestrian", 46.0, 30.0], 20, ["match", ["get", "class"], "motorway", 387.0, "trunk", 355.0, "primary", 323.0, "secondary", 291.0, "tertiary", 258.4, "minor", 210.0, "pedestrian", 178.0, 114.0]]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "bridge-fill", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "pedestrian", "service"], true, false], ["==", ["get", "brunnel"], "bridge"]], "layout": {"line-join": "round", "line-cap": "round", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#E892A2", "trunk", "#F9B29C", "primary", "#FCD6A4", "secondary", "#F7FABF", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#DDDDE8", "track", "#996600", "#0000FF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 0.8, 10, 0.8, 12, ["match", ["get", "class"], "motorway", 1.5, "trunk", 1.375, "primary", 1.25, "secondary", 1.125, "tertiary", 1.0, "minor", 0.812, 0.8], 13, ["match", ["get", "class"], "motorway", 3.0, "trunk", 2.75, "primary", 2.5, "secondary", 2.25, "tertiary", 2.0, "minor", 1.625, "pedestrian", 1.375, 0.875], 14, ["match", ["get", "class"], "motorway", 6.0, "trunk", 5.5, "primary", 5.0, "secondary", 4.5, "tertiary", 4.0, "minor", 3.25, "pedestrian", 2.75, 1.75], 15, ["match", ["get", "class"], "motorway", 12.0, "trunk", 11.0, "primary", 10.0, "secondary", 9.0, "tertiary", 8.0, "minor", 6.5, "pedestrian", 5.5, 3.5], 16, ["match", ["get", "class"], "motorway", 24.0, "trunk", 22.0, "primary", 20.0, "secondary", 18.0, "tertiary", 16.0, "minor", 13.0, "pedestrian", 11.0, 7.0], 17, ["match", ["get", "class"], "motorway", 48.0, "trunk", 44.0, "primary", 40.0, "secondary", 36.0, "tertiary", 32.0, "minor", 26.0, "pedestrian", 22.0, 14.0], 18, ["match", ["get", "class"], "motorway", 96.0, "trunk", 88.0, "primary", 80.0, "secondary", 72.0, "tertiary", 64.0, "minor", 52.0, "pedestrian", 44.0, 28.0], 20, ["match", ["get", "class"], "motorway", 384.0, "trunk", 352.0, "primary", 320.0, "secondary", 288.0, "tertiary", 256.0, "minor", 208.0, "pedestrian", 176.0, 112.0]]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "bridge-track", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["track"], true, false], ["==", ["get", "brunnel"], "bridge"]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#E892A2", "trunk", "#F9B29C", "primary", "#FCD6A4", "secondary", "#F7FABF", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#DDDDE8", "track", "#996600", "#0000FF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 1.2, 10, 1.2, 12, 1.2, 13, 1.2, 14, 1.2, 15, 1.6, 16, 3.2, 17, 6.4, 18, 12.8, 20, 51.2], "line-dasharray": [4, 2.5]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "bridge-path", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["match", ["get", "class"], ["path"], true, false], ["==", ["get", "brunnel"], "bridge"]], "layout": {"line-join": "round", "line-cap": "butt", "line-sort-key": ["+", ["*", ["coalesce", ["get", "layer"], 0], 10], ["match", ["get", "class"], "motorway", 9, "trunk", 8, "primary", 7, "secondary", 6, "tertiary", 5, "minor", 4, "pedestrian", 3, "service", 2, "track", 1, 1]]}, "paint": {"line-color": ["match", ["get", "class"], "motorway", "#E892A2", "trunk", "#F9B29C", "primary", "#FCD6A4", "secondary", "#F7FABF", ["tertiary", "minor", "service"], "#FFFFFF", "pedestrian", "#DDDDE8", "track", "#996600", "#0000FF"], "line-width": ["interpolate", ["exponential", 2], ["zoom"], 8, 0.9, 10, 0.9, 12, 0.9, 13, 0.9, 14, 0.9, 15, 1.2, 16, 2.4, 17, 4.8, 18, 9.6, 20, 38.4], "line-dasharray": [3.3, 2.2]}, "metadata": {"locationkit:category": "roads"}},
  {"id": "bridge-rail", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "rail"], ["==", ["get", "brunnel"], "bridge"]], "paint": {"line-color": "#707070", "line-width": 3}, "metadata": {"locationkit:category": "railways"}},
  {"id": "bridge-rail-hatching", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "rail"], ["==", ["get", "brunnel"], "bridge"]], "paint": {"line-color": "#FFFFFF", "line-width": 1.5, "line-dasharray": [4, 4]}, "metadata": {"locationkit:category": "railways"}},
  {"id": "bridge-transit", "type": "line", "source": "openmaptiles", "source-layer": "transportation", "filter": ["all", ["==", ["get", "class"], "transit"], ["==", ["get", "brunnel"], "bridge"]], "paint": {"line-color": "#707070", "line-width": 1.5}, "metadata": {"locationkit:category": "railways"}},
  {"id": "boundary", "type": "line", "source": "openmaptiles", "source-layer": "boundary", "paint": {"line-color": "#8D618B", "line-width": 1.5, "line-dasharray": [4, 2, 1.333, 2]}, "layout": {"line-join": "round"}, "metadata": {"locationkit:category": "boundaries"}},
  {"id": "pedestrian-area", "type": "fill", "source": "openmaptiles", "source-layer": "pedestrian", "filter": ["all", ["match", ["get", "class"], ["footway", "sidewalk", "path", "corridor", "pedestrian", "steps", "crossing"], true, false], ["==", ["geometry-type"], "Polygon"]], "paint": {"fill-color": "#DDDDE8"}, "layout": {"visibility": "none"}, "metadata": {"locationkit:category": "pedestrian"}},
  {"id": "pedestrian-steps", "type": "line", "source": "openmaptiles", "source-layer": "pedestrian", "filter": ["all", ["match", ["get", "class"], ["steps", "escalator"], true, false], ["==", ["geometry-type"], "LineString"]], "layout": {"visibility": "none", "line-cap": "butt"}, "paint": {"line-color": "#FA8072", "line-width": ["interpolate", ["exponential", 2], ["zoom"], 13, 2.5, 14, 2.5, 15, 5, 20, 160], "line-dasharray": [0.3, 0.2]}, "metadata": {"locationkit:category": "pedestrian"}},
  {"id": "pedestrian-crossing", "type": "line", "source": "openmaptiles", "source-layer": "pedestrian", "filter": ["all", ["match", ["get", "class"], ["crossing"], true, false], ["==", ["geometry-type"], "LineString"]], "layout": {"visibility": "none", "line-cap": "butt"}, "paint": {"line-color": "#666666", "line-width": ["interpolate", ["exponential", 2], ["zoom"], 13, 2, 14, 2, 15, 4, 20, 128], "line-dasharray": [0.375, 0.375]}, "metadata": {"locationkit:category": "pedestrian"}},
  {"id": "pedestrian-way", "type": "line", "source": "openmaptiles", "source-layer": "pedestrian", "filter": ["all", ["match", ["get", "class"], ["footway", "sidewalk", "path", "corridor"], true, false], ["==", ["geometry-type"], "LineString"]], "layout": {"visibility": "none", "line-cap": "round"}, "paint": {"line-color": "#FA8072", "line-width": 1.4, "line-dasharray": [2.857, 1.429]}, "metadata": {"locationkit:category": "pedestrian"}},
  {"id": "pedestrian-node", "type": "circle", "source": "openmaptiles", "source-layer": "pedestrian", "filter": ["all", ["match", ["get", "class"], ["elevator", "crossing"], true, false], ["==", ["geometry-type"], "Point"]], "layout": {"visibility": "none"}, "paint": {"circle-radius": 3, "circle-color": ["match", ["get", "class"], "elevator", "#0092DA", "#666666"], "circle-stroke-width": 1, "circle-stroke-color": "#FFFFFF"}, "metadata": {"locationkit:category": "pedestrian"}},
  {"id": "oneway", "type": "symbol", "source": "openmaptiles", "source-layer": "transportation", "minzoom": 15, "filter": ["all", ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "pedestrian", "service", "track", "path"], true, false], ["match", ["get", "oneway"], [1, -1], true, false]], "layout": {"symbol-placement": "line", "symbol-spacing": 180, "icon-image": "oneway", "icon-rotate": ["match", ["get", "oneway"], -1, 180, 0], "icon-rotation-alignment": "map", "icon-padding": 1}, "metadata": {"locationkit:category": "roads"}},
  {"id": "street-name", "type": "symbol", "source": "openmaptiles", "source-layer": "transportation_name", "filter": ["has", "name"], "layout": {"symbol-placement": "line", "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 11, "text-max-angle": 30, "symbol-spacing": 250}, "paint": {"text-color": "#333333", "text-halo-color": "#FFFFFF", "text-halo-width": 1.5}, "metadata": {"locationkit:category": "street-names"}},
  {"id": "water-name", "type": "symbol", "source": "openmaptiles", "source-layer": "water", "filter": ["has", "name"], "minzoom": 13, "layout": {"text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 12, "text-offset": [0, -0.35]}, "paint": {"text-color": "#1A6D9A", "text-halo-color": "#FFFFFF", "text-halo-width": 1.5}, "metadata": {"locationkit:category": "water"}},
  {"id": "park-name", "type": "symbol", "source": "openmaptiles", "source-layer": "park", "filter": ["has", "name"], "minzoom": 13, "layout": {"text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 12, "text-offset": [0, -0.35]}, "paint": {"text-color": "#2E7D32", "text-halo-color": "#FFFFFF", "text-halo-width": 1.5}, "metadata": {"locationkit:category": "parks"}},
  {"id": "poi", "type": "symbol", "source": "openmaptiles", "source-layer": "poi", "layout": {"icon-image": ["match", ["get", "class"], ["cafe", "restaurant", "fast_food", "bar", "fuel", "parking", "bicycle_parking", "bus", "railway", "tram", "ferry", "hospital", "doctors", "pharmacy", "school", "college", "library", "museum", "theatre", "cinema", "artwork", "attraction", "shop", "lodging", "park", "playground", "sports", "stadium", "swimming_pool", "viewpoint"], ["concat", "poi-", ["get", "class"]], "poi"], "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 11, "text-anchor": "left", "text-offset": [1, 0], "text-optional": true}, "paint": {"text-color": ["match", ["get", "class"], ["cafe", "restaurant", "fast_food", "bar"], "#C77400", ["fuel", "parking", "bicycle_parking", "bus", "railway", "tram", "ferry"], "#0092DA", ["hospital", "doctors", "pharmacy"], "#BF0000", ["school", "college", "library", "museum", "theatre", "cinema", "artwork", "attraction"], "#734A08", "shop", "#AC39AC", "lodging", "#0E5BA8", ["park", "playground", "sports", "stadium", "swimming_pool", "viewpoint"], "#39AC39", "#666666"], "text-halo-color": "#FFFFFF", "text-halo-width": 1.5}, "metadata": {"locationkit:category": "pois"}},
  {"id": "place-name", "type": "symbol", "source": "openmaptiles", "source-layer": "place", "filter": ["has", "name"], "layout": {"text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": ["match", ["get", "class"], ["country", "state", "city"], 18, "town", 15, ["village", "suburb"], 13, 11.5], "symbol-sort-key": ["match", ["get", "class"], "country", 0, "state", 1, "city", 2, "town", 3, "village", 4, "suburb", 5, "hamlet", 6, "quarter", 7, "neighbourhood", 8, "island", 9, "locality", 10, 11], "text-offset": [0, -0.35]}, "paint": {"text-color": "#222222", "text-halo-color": "#FFFFFF", "text-halo-width": 2}, "metadata": {"locationkit:category": "places"}}
 ]
}
"""#
}
