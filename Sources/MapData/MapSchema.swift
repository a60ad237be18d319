/// The tags of an OSM element as the schema reads them. OSMImport's `OSMTags` conforms; a
/// `[String: String]` does too (tests, hand-made data).
public protocol MapTagSource {
    /// The value of the tag with this key, or nil.
    subscript(key: String) -> String? { get }
    /// Calls `body` with every key and value, in the element's order.
    func forEachTag(_ body: (_ key: String, _ value: String) -> Void)
}

extension Dictionary: MapTagSource where Key == String, Value == String {
    public func forEachTag(_ body: (String, String) -> Void) {
        for key in keys.sorted() { body(key, self[key]!) }
    }
}

/// The vector-tile layers, named and shaped after OpenMapTiles 3.x
/// (https://openmaptiles.org/schema/) with Shortbread's split of pedestrian features.
public enum MapLayer: String, CaseIterable, Hashable, Sendable, Comparable {
    case water, waterway, landcover, landuse, park, building, transportation
    case transportationName = "transportation_name"
    case boundary, place, poi, pedestrian

    /// Draw order, bottom first (the order of `allCases`).
    public static func < (a: MapLayer, b: MapLayer) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The layer schema: which OSM tags make which features, with which properties, from which zoom.
///
/// | layer | geometry | from OSM | `class` values | other properties | min zoom |
/// |---|---|---|---|---|---|
/// | `water` | polygon | `natural=water`, `waterway=riverbank/dock`, `landuse=reservoir/basin`, `leisure=swimming_pool`; the sea from `natural=coastline` ways (`MapFeatureExtractor.finish(bounds:)`) | `lake`, `river`, `swimming_pool`, `ocean` | `intermittent`, `name` | 6, `ocean` 0 |
/// | `waterway` | line | `waterway=river/canal/stream/drain/ditch` | the `waterway` value | `name`, `brunnel` | river 8, canal 11, others 13 |
/// | `landcover` | polygon | `natural=wood/scrub/grassland/heath/wetland/sand/beach/bare_rock/scree/glacier`, `landuse=forest/grass/meadow/farmland/orchard/vineyard/…` | `wood`, `grass`, `farmland`, `wetland`, `sand`, `rock`, `ice` | `subclass` (the tag value) | 7 |
/// | `landuse` | polygon | `landuse=residential/commercial/industrial/retail/…`, `amenity=school/university/hospital/…`, `leisure=stadium/pitch/playground/…` | the tag value (`grave_yard` → `cemetery`) | | 9 |
/// | `park` | polygon | `leisure=park/garden/nature_reserve`, `boundary=national_park/protected_area` | the tag value | `name` | 8 |
/// | `building` | polygon | `building=*` except `no` | `building` | `render_height`, `render_min_height` (metres, from `height`/`building:levels` × 3 m) | 13 |
/// | `transportation` | line, polygon (`area=yes`) | `highway=*` roads, `railway=rail/light_rail/subway/tram/…` | `motorway`, `trunk`, `primary`, `secondary`, `tertiary`, `minor`, `service`, `track`, `path`, `pedestrian`, `rail`, `transit` | `subclass`, `brunnel` (`bridge`/`tunnel`/`ford`), `oneway` (1, −1), `ramp` (1), `layer`, `service` | motorway 4, trunk 5, primary 7, secondary 9, tertiary 10, minor 12, rail 9, transit 12, others 13 |
/// | `transportation_name` | line | named or `ref`-ed roads of `transportation` | as `transportation` | `name`, `ref`, `subclass` | the road's + 2 (≥ 10), minor 13, others 14 |
/// | `boundary` | line | `boundary=administrative` ways and relation members, `admin_level` ≤ 10 | `administrative` | `admin_level`, `maritime`, `disputed` | level 2: 0, ≤ 4: 3, ≤ 6: 8, ≤ 8: 10, else 12 |
/// | `place` | point | `place=*` nodes | `country`, `state`, `city`, `town`, `village`, `suburb`, `hamlet`, `quarter`, `neighbourhood`, `locality`, `island`, `isolated_dwelling` | `name`, `population`, `capital` | country 0, state 3, city 4, town 7, village 10, suburb 11, hamlet 12, quarter/neighbourhood 13, others 14 |
/// | `poi` | point (areas: their centroid) | `amenity`, `shop`, `tourism`, `leisure`, `historic`, `highway=bus_stop`, `railway=station/halt/tram_stop` | `fuel`, `cafe`, `restaurant`, `fast_food`, `bar`, `parking`, `hospital`, `pharmacy`, `school`, `college`, `bank`, `atm`, `post`, `police`, `shop`, `lodging`, `museum`, `attraction`, `place_of_worship`, `toilets`, `bus`, `railway`, … | `subclass` (the tag value), `name` | hospital, railway 13; others 14 |
/// | `pedestrian` | line, point, polygon | `highway=footway/path/steps/corridor`, `footway=crossing`, `conveying=*` steps, `highway=elevator/crossing` nodes, `railway=crossing` | `footway`, `sidewalk`, `path`, `steps`, `escalator`, `corridor`, `crossing`, `elevator` | `subclass`, `brunnel` | 14 |
///
/// Every named feature also carries `name` and the `name:LANG` tags (`name:ja`, `name:ar` …)
/// so a renderer can choose the label language.
///
/// Generalisation below the highest zoom of a tile set (`MapTiler`), in pixels of a 256-pixel
/// tile: geometry is simplified at 0.5 px; lines under 1 px and polygons under 4 px² are
/// dropped; `building`, `landuse` and `landcover` polygons under 16 px² are merged, per tile,
/// with the others of their layer and `class` into one feature, the union of their outlines with
/// gaps under 1 px closed (`PolygonMerging`), which keeps only `class` and has no id. Merged
/// areas still under 4 px² are dropped. At the highest zoom every feature is kept as it is.
public enum MapSchema {
    /// The highest zoom the rules know; tiles past it are overzoomed by clients.
    public static let maxZoom = 14

    /// What a rule makes: a layer, its properties and first zoom, and the geometry to give it.
    public struct Output: Hashable, Sendable {
        public enum Shape: Hashable, Sendable {
            /// The element's own geometry (a node's point, a way's line or area).
            case natural
            /// A label point: a node's point or an area's centroid.
            case labelPoint
        }
        public var layer: MapLayer
        public var properties: [MapProperty]
        public var minZoom: Int
        public var shape: Shape
    }

    /// Whether a closed way with these tags is an area (polygon) rather than a ring-shaped line,
    /// after the OSM wiki's "Key:area" defaults.
    public static func isArea(_ tags: some MapTagSource) -> Bool {
        if let area = tags["area"] { return area == "yes" }
        if tags["building"] != nil || tags["landuse"] != nil || tags["leisure"] != nil || tags["amenity"] != nil
            || tags["shop"] != nil || tags["tourism"] != nil || tags["building:part"] != nil || tags["place"] != nil {
            return true
        }
        if let natural = tags["natural"] { return !["coastline", "cliff", "tree_row", "ridge", "arete"].contains(natural) }
        if let waterway = tags["waterway"] { return ["riverbank", "dock", "boatyard"].contains(waterway) }
        if let boundary = tags["boundary"] { return boundary == "national_park" || boundary == "protected_area" }
        return false
    }

    /// The features of a node.
    public static func nodeFeatures(_ tags: some MapTagSource) -> [Output] {
        var out: [Output] = []
        if let place = tags["place"], let rule = placeZoom[place], tags["name"] != nil {
            var props = [MapProperty("class", .string(place))]
            if let p = tags["population"].flatMap({ Int64($0.filter { $0.isNumber }) }) { props.append(MapProperty("population", .int(p))) }
            if let c = tags["capital"] { props.append(MapProperty("capital", .string(c))) }
            appendNames(tags, to: &props)
            out.append(Output(layer: .place, properties: props, minZoom: rule, shape: .natural))
        }
        if let poi = poiOutput(tags) { out.append(poi) }
        if let kind = tags["highway"] ?? tags["railway"], kind == "elevator" || kind == "crossing" {
            var props = [MapProperty("class", .string(kind)), MapProperty("subclass", .string(tags["crossing"] ?? kind))]
            appendNames(tags, to: &props)
            out.append(Output(layer: .pedestrian, properties: props, minZoom: 14, shape: .natural))
        }
        return out
    }

    /// The features of a way (`closed`: first node = last node and at least 4 nodes) or of a
    /// multipolygon relation (`closed` and treated as an area).
    public static func wayFeatures(_ tags: some MapTagSource, closed: Bool) -> [Output] {
        let area = closed && isArea(tags)
        var out: [Output] = []
        if area {
            areaFeatures(tags, into: &out)
            if let poi = poiOutput(tags) { out.append(Output(layer: .poi, properties: poi.properties, minZoom: poi.minZoom, shape: .labelPoint)) }
        }
        lineFeatures(tags, area: area, into: &out)
        return out
    }

    /// The line features of a way; `area` ways give only the road areas (`area=yes`).
    static func lineFeatures(_ tags: some MapTagSource, area: Bool, into out: inout [Output]) {
        if let highway = tags["highway"] {
            if let pedestrian = pedestrianClass(highway: highway, tags) {
                // A pedestrian area (`area=yes`) is drawn by `areaFeatures`, not as its outline.
                guard !area else { return }
                var props = [MapProperty("class", .string(pedestrian)), MapProperty("subclass", .string(highway))]
                appendBrunnel(tags, to: &props)
                appendNames(tags, to: &props)
                out.append(Output(layer: .pedestrian, properties: props, minZoom: 14, shape: .natural))
            } else if let (roadClass, zoom) = roadClass(highway) {
                // A closed road is a road area only when tagged so (`area=yes`, "Key:area").
                guard !area || tags["area"] == "yes" else { return }
                var props = [MapProperty("class", .string(roadClass)), MapProperty("subclass", .string(highway))]
                appendBrunnel(tags, to: &props)
                if !area { appendOneway(tags, to: &props) }
                if highway.hasSuffix("_link") { props.append(MapProperty("ramp", .int(1))) }
                if let layer = tags["layer"].flatMap({ Int64($0) }), (-5...5).contains(layer) { props.append(MapProperty("layer", .int(layer))) }
                if let service = tags["service"] { props.append(MapProperty("service", .string(service))) }
                out.append(Output(layer: .transportation, properties: props, minZoom: zoom, shape: .natural))
                if !area, tags["name"] != nil || tags["ref"] != nil {
                    var names = [MapProperty("class", .string(roadClass)), MapProperty("subclass", .string(highway))]
                    if let ref = tags["ref"] { names.append(MapProperty("ref", .string(ref))) }
                    appendNames(tags, to: &names)
                    let nameZoom = roadClass == "minor" ? 13 : zoom >= 12 ? 14 : max(10, zoom + 2)
                    out.append(Output(layer: .transportationName, properties: names, minZoom: nameZoom, shape: .natural))
                }
            }
        }
        if !area, let railway = tags["railway"], let (railClass, zoom) = railClass(railway, service: tags["service"]) {
            var props = [MapProperty("class", .string(railClass)), MapProperty("subclass", .string(railway))]
            appendBrunnel(tags, to: &props)
            if let service = tags["service"] { props.append(MapProperty("service", .string(service))) }
            out.append(Output(layer: .transportation, properties: props, minZoom: zoom, shape: .natural))
        }
        if !area, let waterway = tags["waterway"], let zoom = waterwayZoom[waterway] {
            var props = [MapProperty("class", .string(waterway))]
            appendBrunnel(tags, to: &props)
            appendNames(tags, to: &props)
            out.append(Output(layer: .waterway, properties: props, minZoom: zoom, shape: .natural))
        }
        if !area, tags["boundary"] == "administrative", let boundary = boundaryOutput(tags) {
            out.append(boundary)
        }
    }

    /// The administrative boundary line for these tags (a way's, or a boundary relation's for its member ways).
    public static func boundaryOutput(_ tags: some MapTagSource) -> Output? {
        guard let level = tags["admin_level"].flatMap({ Int64($0) }), (1...10).contains(level) else { return nil }
        var props = [MapProperty("class", .string("administrative")), MapProperty("admin_level", .int(level))]
        if tags["maritime"] == "yes" { props.append(MapProperty("maritime", .int(1))) }
        if tags["disputed"] == "yes" { props.append(MapProperty("disputed", .int(1))) }
        let zoom = level <= 2 ? 0 : level <= 4 ? 3 : level <= 6 ? 8 : level <= 8 ? 10 : 12
        return Output(layer: .boundary, properties: props, minZoom: zoom, shape: .natural)
    }

    /// Area layers: water, landcover, landuse, park, building, pedestrian areas.
    static func areaFeatures(_ tags: some MapTagSource, into out: inout [Output]) {
        func add(_ layer: MapLayer, _ cls: String, zoom: Int, subclass: String? = nil, named: Bool = false, extra: [MapProperty] = []) {
            var props = [MapProperty("class", .string(cls))]
            if let subclass { props.append(MapProperty("subclass", .string(subclass))) }
            props += extra
            if named { appendNames(tags, to: &props) }
            out.append(Output(layer: layer, properties: props, minZoom: zoom, shape: .natural))
        }
        let natural = tags["natural"], landuse = tags["landuse"], leisure = tags["leisure"], amenity = tags["amenity"]
        if natural == "water" || tags["waterway"] == "riverbank" || tags["waterway"] == "dock" || landuse == "reservoir" || landuse == "basin" || leisure == "swimming_pool" {
            let water = tags["water"]
            let cls = leisure == "swimming_pool" ? "swimming_pool"
                : (tags["waterway"] == "riverbank" || water == "river" || water == "canal" || water == "stream") ? "river" : "lake"
            add(.water, cls, zoom: 6, named: true, extra: tags["intermittent"] == "yes" ? [MapProperty("intermittent", .int(1))] : [])
        }
        let cover = natural.flatMap { landcoverClass[$0] } ?? landuse.flatMap { landcoverClass[$0] } ?? leisure.flatMap { $0 == "golf_course" ? "grass" : nil }
        if let cover { add(.landcover, cover, zoom: 7, subclass: natural ?? landuse ?? leisure) }
        if let use = landuse.flatMap({ landuseClasses.contains($0) ? $0 : nil })
            ?? amenity.flatMap({ landuseAmenities[$0] })
            ?? leisure.flatMap({ landuseLeisure.contains($0) ? $0 : nil }) {
            add(.landuse, use, zoom: 9)
        }
        if let park = leisure.flatMap({ ["park", "garden", "nature_reserve"].contains($0) ? $0 : nil })
            ?? tags["boundary"].flatMap({ ["national_park", "protected_area"].contains($0) ? $0 : nil }) {
            add(.park, park, zoom: 8, named: true)
        }
        if let building = tags["building"] ?? tags["building:part"], building != "no" {
            var extra: [MapProperty] = []
            if let h = height(tags["height"]) ?? tags["building:levels"].flatMap({ Double($0) }).map({ $0 * 3 }), h.isFinite, h >= 0, h < 1000 {
                extra.append(MapProperty("render_height", .double(h)))
            }
            if let h = height(tags["min_height"]) ?? tags["building:min_level"].flatMap({ Double($0) }).map({ $0 * 3 }), h.isFinite, h >= 0, h < 1000 {
                extra.append(MapProperty("render_min_height", .double(h)))
            }
            add(.building, "building", zoom: 13, extra: extra)
        }
        if let highway = tags["highway"], tags["area"] == "yes", let cls = pedestrianClass(highway: highway, tags) ?? (highway == "pedestrian" ? "pedestrian" : nil) {
            add(.pedestrian, cls, zoom: 14, subclass: highway, named: true)
        }
    }

    /// A metre value such as `12`, `12.5 m` or `12m`; nil for anything else.
    static func height(_ value: String?) -> Double? {
        guard var s = value?.trimmingCharactersSpace() else { return nil }
        if s.hasSuffix("m") { s.removeLast(); s = s.trimmingCharactersSpace() }
        return Double(s)
    }

    /// The POI of a node or area, if its tags name a category.
    static func poiOutput(_ tags: some MapTagSource) -> Output? {
        var cls: String?, subclass: String?
        for key in ["amenity", "shop", "tourism", "leisure", "historic", "highway", "railway"] {
            guard let value = tags[key] else { continue }
            let c: String?
            switch key {
            case "amenity": c = poiAmenity[value]
            case "shop": c = "shop"
            case "tourism": c = poiTourism[value]
            case "leisure": c = poiLeisure[value]
            case "historic": c = ["monument", "memorial", "castle", "ruins", "archaeological_site"].contains(value) ? "monument" : nil
            case "highway": c = value == "bus_stop" ? "bus" : nil
            default: c = value == "station" || value == "halt" ? "railway" : value == "tram_stop" ? "tram" : nil
            }
            if let c { cls = c; subclass = value; break }
        }
        guard let cls, let subclass else { return nil }
        var props = [MapProperty("class", .string(cls)), MapProperty("subclass", .string(subclass))]
        appendNames(tags, to: &props)
        return Output(layer: .poi, properties: props, minZoom: cls == "hospital" || cls == "railway" ? 13 : 14, shape: .natural)
    }

    static func pedestrianClass(highway: String, _ tags: some MapTagSource) -> String? {
        switch highway {
        case "footway":
            switch tags["footway"] {
            case "crossing": return "crossing"
            case "sidewalk": return "sidewalk"
            default: return "footway"
            }
        case "path": return "path"
        case "steps": return tags["conveying"].map { $0 == "no" ? "steps" : "escalator" } ?? "steps"
        case "corridor": return "corridor"
        case "elevator": return "elevator"
        default: return nil
        }
    }

    static func roadClass(_ highway: String) -> (String, Int)? {
        switch highway {
        case "motorway", "motorway_link": ("motorway", 4)
        case "trunk", "trunk_link": ("trunk", 5)
        case "primary", "primary_link": ("primary", 7)
        case "secondary", "secondary_link": ("secondary", 9)
        case "tertiary", "tertiary_link": ("tertiary", 10)
        case "unclassified", "residential", "living_street", "road": ("minor", 12)
        case "service": ("service", 13)
        case "track": ("track", 13)
        case "cycleway", "bridleway": ("path", 13)
        case "pedestrian": ("pedestrian", 13)
        default: nil
        }
    }

    static func railClass(_ railway: String, service: String?) -> (String, Int)? {
        switch railway {
        case "rail": ("rail", service == nil ? 9 : 13)
        case "light_rail", "subway", "tram", "narrow_gauge", "monorail", "funicular": ("transit", 12)
        default: nil
        }
    }

    static func appendBrunnel(_ tags: some MapTagSource, to props: inout [MapProperty]) {
        if let bridge = tags["bridge"], bridge != "no" { props.append(MapProperty("brunnel", .string("bridge"))) }
        else if let tunnel = tags["tunnel"], tunnel != "no" { props.append(MapProperty("brunnel", .string("tunnel"))) }
        else if let ford = tags["ford"], ford != "no" { props.append(MapProperty("brunnel", .string("ford"))) }
    }

    static func appendOneway(_ tags: some MapTagSource, to props: inout [MapProperty]) {
        switch tags["oneway"] {
        case "yes", "1", "true": props.append(MapProperty("oneway", .int(1)))
        case "-1", "reverse": props.append(MapProperty("oneway", .int(-1)))
        case nil where tags["junction"] == "roundabout" || tags["highway"] == "motorway":
            props.append(MapProperty("oneway", .int(1)))
        default: break
        }
    }

    /// Appends `name`, every `name:LANG` tag, and the OpenMapTiles schema's derived names that
    /// styles such as OSM Bright and Positron label with (openmaptiles/openmaptiles
    /// `layers/*/README` "name" fields, made as its `get_basic_names` does): `name:latin` (the
    /// name when written in Latin script, else `name:en`, else `int_name`; OpenMapTiles
    /// transliterates what is left, which this does not), `name:nonlatin` (the name when it is
    /// not in Latin script), `name_en` (`name:en`, else the name) and `name_int` (`int_name`,
    /// else `name:en`, else `name:latin`, else the name). A tag of the same key wins.
    static func appendNames(_ tags: some MapTagSource, to props: inout [MapProperty]) {
        guard let name = tags["name"] else { return }
        props.append(MapProperty("name", .string(name)))
        var keys: Set<String> = ["name"]
        tags.forEachTag { key, value in
            if key.hasPrefix("name:") {
                props.append(MapProperty(key, .string(value)))
                keys.insert(key)
            }
        }
        let written = isLatin(name)
        let latin = written ? name : tags["name:en"] ?? tags["int_name"]
        let derived: [(String, String?)] = [
            ("name:latin", latin), ("name:nonlatin", written ? nil : name), ("name_en", tags["name:en"] ?? name),
            ("name_int", tags["int_name"] ?? tags["name:en"] ?? latin ?? name),
        ]
        for case let (key, value?) in derived where !keys.contains(key) { props.append(MapProperty(key, .string(value))) }
    }

    /// Whether every letter of `text` is a Latin one (Unicode's Basic Latin, Latin-1
    /// Supplement, Latin Extended-A/B, IPA, Latin Extended Additional, -C, -D and -E blocks,
    /// and the fullwidth Latin letters): what OpenMapTiles' `name:latin` keeps as written.
    static func isLatin(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { c in
            guard c.properties.isAlphabetic else { return true }
            switch c.value {
            case 0x41...0x24F, 0x250...0x2AF, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F,
                 0xFF21...0xFF3A, 0xFF41...0xFF5A: return true
            default: return false
            }
        }
    }

    static let placeZoom: [String: Int] = [
        "country": 0, "state": 3, "city": 4, "town": 7, "village": 10, "suburb": 11, "hamlet": 12,
        "quarter": 13, "neighbourhood": 13, "locality": 14, "island": 14, "isolated_dwelling": 14,
    ]
    static let waterwayZoom: [String: Int] = ["river": 8, "canal": 11, "stream": 13, "drain": 13, "ditch": 13]
    static let landcoverClass: [String: String] = [
        "wood": "wood", "forest": "wood", "scrub": "grass", "grassland": "grass", "heath": "grass", "grass": "grass",
        "meadow": "grass", "village_green": "grass", "recreation_ground": "grass",
        "farmland": "farmland", "farmyard": "farmland", "orchard": "farmland", "vineyard": "farmland", "allotments": "farmland",
        "wetland": "wetland", "sand": "sand", "beach": "sand", "bare_rock": "rock", "scree": "rock", "glacier": "ice",
    ]
    static let landuseClasses: Set<String> = [
        "residential", "commercial", "industrial", "retail", "railway", "cemetery", "military", "quarry",
        "garages", "construction", "brownfield", "religious",
    ]
    static let landuseAmenities: [String: String] = [
        "school": "school", "university": "university", "college": "college", "kindergarten": "kindergarten",
        "hospital": "hospital", "grave_yard": "cemetery",
    ]
    static let landuseLeisure: Set<String> = ["stadium", "pitch", "playground", "track", "theme_park", "zoo"]
    /// Every `poi` layer `class` the schema writes, sorted (the seed's `poiCategories`).
    public static let poiClasses: [String] = Set(poiAmenity.values).union(poiTourism.values).union(poiLeisure.values)
        .union(["shop", "monument", "bus", "railway", "tram"]).sorted()
    static let poiAmenity: [String: String] = [
        "fuel": "fuel", "charging_station": "fuel", "cafe": "cafe", "restaurant": "restaurant", "fast_food": "fast_food",
        "bar": "bar", "pub": "bar", "parking": "parking", "parking_entrance": "parking", "bicycle_parking": "bicycle_parking",
        "hospital": "hospital", "clinic": "hospital", "doctors": "doctors", "pharmacy": "pharmacy",
        "school": "school", "kindergarten": "school", "university": "college", "college": "college",
        "bank": "bank", "atm": "atm", "post_office": "post", "police": "police", "fire_station": "fire_station",
        "townhall": "town_hall", "library": "library", "theatre": "theatre", "cinema": "cinema",
        "place_of_worship": "place_of_worship", "toilets": "toilets", "drinking_water": "drinking_water",
        "bus_station": "bus", "ferry_terminal": "ferry", "marketplace": "shop", "embassy": "embassy",
    ]
    static let poiTourism: [String: String] = [
        "hotel": "lodging", "hostel": "lodging", "guest_house": "lodging", "motel": "lodging", "museum": "museum",
        "attraction": "attraction", "viewpoint": "viewpoint", "information": "information", "artwork": "artwork", "zoo": "zoo",
    ]
    static let poiLeisure: [String: String] = [
        "playground": "playground", "sports_centre": "sports", "stadium": "stadium", "swimming_pool": "swimming_pool",
        "fitness_centre": "sports", "park": "park",
    ]
}

extension String {
    /// The string without leading and trailing spaces.
    func trimmingCharactersSpace() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
