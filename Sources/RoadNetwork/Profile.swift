public import GeoCore
import Platform

/// What a profile makes of one way in one direction.
public struct DirectionAttributes: Hashable, Sendable {
    /// Travel speed (after `maxspeed`, surface and the profile's reduction).
    public var speed: Speed
    /// Routability factor in (0, 1]: the weight is the duration divided by it
    /// (OSRM `rate = speed × penalty`; service roads, narrow roads).
    public var rateFactor: Double
    /// How the direction is travelled.
    public var mode: TravelMode
    /// Access is limited (`private`, `destination`, …): usable only to start or end a route.
    public var isRestricted: Bool
}

/// What a profile makes of one way: per-direction attributes (nil = not allowed), class, name.
public struct WayAttributes: Hashable, Sendable {
    public var forward: DirectionAttributes?
    public var backward: DirectionAttributes?
    public var roadClass: RoadClass
    /// `name`, else `ref`, else empty.
    public var name: String
    public var isRoundabout: Bool
    /// Whether a route may start or end on the way (OSRM `is_startpoint`): false for ferries
    /// and other modes outside the profile's `startModes`, and for car service roads with
    /// `access=private`. The router never snaps an end point onto such a way.
    public var isStartPoint: Bool
}

/// What a profile makes of one node.
public struct NodeAttributes: Hashable, Sendable {
    /// Travel cannot pass the node (a bollard, a gate for cars without a penalty rule).
    public var isBarrier: Bool
    /// Time added when passing the node (traffic signals, stop signs, toll gates).
    public var penalty: Duration

    public static let plain = NodeAttributes(isBarrier: false, penalty: .zero)
}

/// The costs of turning at an intersection, as OSRM's `process_turn` computes them.
///
/// The turn duration for an intersection of more than two roads is
/// `turnPenalty / (1 + exp(-(13 / bias · a/180 − 6.5 · bias)))` for a right turn by angle
/// `a` (degrees, 0 = straight on) and the mirrored form for left turns, plus
/// `oncomingTurnPenalty` × sharpness for turns across oncoming traffic, plus `uTurnPenalty`
/// for U-turns (OSRM profiles/car.lua `process_turn`).
///
/// The penalties are kept in seconds inside, for the router's hot loop (`seconds(angle:…)`);
/// the graph file stores those same numbers.
public struct TurnCostModel: Hashable, Sendable {
    /// The sharpest turn's penalty, seconds.
    var turnPenaltySeconds: Double
    /// Asymmetry between right and left turns (car 1.075, bicycle 1.4), right-hand traffic.
    public var turnBias: Double
    /// Extra for crossing oncoming traffic, seconds.
    var oncomingTurnPenaltySeconds: Double
    /// A U-turn's penalty, seconds.
    var uTurnPenaltySeconds: Double

    /// Time for the sharpest turn (car 7.5 s, bicycle 6 s, foot 0).
    public var turnPenalty: Duration {
        get { .seconds(turnPenaltySeconds) }
        set { turnPenaltySeconds = newValue / .seconds(1) }
    }
    /// Extra time for crossing oncoming traffic (car 2 s).
    public var oncomingTurnPenalty: Duration {
        get { .seconds(oncomingTurnPenaltySeconds) }
        set { oncomingTurnPenaltySeconds = newValue / .seconds(1) }
    }
    /// Time for a U-turn at a dead end (car 20 s, foot 2 s).
    public var uTurnPenalty: Duration {
        get { .seconds(uTurnPenaltySeconds) }
        set { uTurnPenaltySeconds = newValue / .seconds(1) }
    }

    public init(turnPenalty: Duration, turnBias: Double, oncomingTurnPenalty: Duration, uTurnPenalty: Duration) {
        self.init(turnPenaltySeconds: turnPenalty / .seconds(1), turnBias: turnBias,
                  oncomingTurnPenaltySeconds: oncomingTurnPenalty / .seconds(1), uTurnPenaltySeconds: uTurnPenalty / .seconds(1))
    }

    /// Whether every penalty is 0 through a day (86,400 s) and the bias positive and at most
    /// 100: what a graph file may hold, so that turn times are finite `Duration`s.
    var isValid: Bool {
        [turnPenaltySeconds, oncomingTurnPenaltySeconds, uTurnPenaltySeconds].allSatisfy { (0...86_400).contains($0) }
            && turnBias > 0 && turnBias <= 100
    }

    /// The model from penalties in seconds, as the graph file stores them.
    init(turnPenaltySeconds: Double, turnBias: Double, oncomingTurnPenaltySeconds: Double, uTurnPenaltySeconds: Double) {
        self.turnPenaltySeconds = turnPenaltySeconds
        self.turnBias = turnBias
        self.oncomingTurnPenaltySeconds = oncomingTurnPenaltySeconds
        self.uTurnPenaltySeconds = uTurnPenaltySeconds
    }

    /// The time a turn by `angle` degrees (0 straight, positive right, ±180 U-turn) takes at
    /// an intersection with `roadCount` roads.
    /// - Complexity: O(1).
    public func duration(angle: Double, roadCount: Int, isUTurn: Bool, involvesRoundabout: Bool) -> Duration {
        .seconds(seconds(angle: angle, roadCount: roadCount, isUTurn: isUTurn, involvesRoundabout: involvesRoundabout))
    }

    /// `duration(angle:roadCount:isUTurn:involvesRoundabout:)` in seconds, for the router,
    /// which adds it to edge weights once per relaxation.
    package func seconds(angle: Double, roadCount: Int, isUTurn: Bool, involvesRoundabout: Bool) -> Double {
        let turnPenalty = turnPenaltySeconds, oncomingTurnPenalty = oncomingTurnPenaltySeconds
        guard roadCount > 2 || isUTurn else { return 0 }
        var d = 0.0
        if turnPenalty > 0 {
            if angle >= 0 {
                d += turnPenalty / (1 + exp(-((13 / turnBias) * angle / 180 - 6.5 * turnBias)))
            } else {
                d += turnPenalty / (1 + exp(-((13 * turnBias) * -angle / 180 - 6.5 / turnBias)))
            }
        }
        if angle < 0, !isUTurn, roadCount > 2, !involvesRoundabout, oncomingTurnPenalty > 0 {
            let sharpness = 1 / (1 + exp(-(13 * abs(angle) / 180 - 3.25)))
            d += oncomingTurnPenalty * sharpness
        }
        if isUTurn { d += uTurnPenaltySeconds }
        return d
    }
}

/// A travel profile as a Swift value: which OSM ways and nodes are usable, how fast, which
/// way, and what turning costs — the decisions OSRM's `car.lua`, `foot.lua` and
/// `bicycle.lua` make (OSRM v26 profiles; `lib/way_handlers.lua`).
public struct Profile: Hashable, Sendable {
    /// The profile's name (`car`, `foot`, `bicycle`), stored in graph files.
    public var name: String
    /// The mode ordinary edges are travelled in.
    public var mode: TravelMode
    /// Modes a route may start or end in (OSRM `allowed_start_modes`, else its `default_mode`).
    /// No preset lists `.ferry`, so no route begins or ends on a ferry line.
    public var startModes: Set<TravelMode>
    /// Access keys from most to least specific (`motorcar`, `motor_vehicle`, `vehicle`, `access`).
    public var accessTagHierarchy: [String]
    /// Access values that allow travel.
    public var accessWhitelist: Set<String>
    /// Access values that forbid travel (unless also in `restrictedAccess`).
    public var accessBlacklist: Set<String>
    /// Access values that allow travel only to reach a destination there.
    public var restrictedAccess: Set<String>
    /// Highway classes where `restrictedAccess` applies; elsewhere those values forbid.
    public var restrictedHighways: Set<String>
    /// Mode-specific `oneway:*` suffixes consulted first (`oneway:motorcar`, …).
    public var onewayModes: [String]
    /// Whether plain `oneway`, roundabouts and motorways make a way one-way (false for foot).
    public var obeysGeneralOneway: Bool
    /// Speeds by `highway` value.
    public var highwaySpeeds: [String: Speed]
    /// Speeds by `highway` value where a bicycle is pushed (walking mode).
    public var pushingSpeeds: [String: Speed]
    /// Speeds by `route` value (`ferry`).
    public var routeSpeeds: [String: Speed]
    /// Speed caps by `surface`, `tracktype` and `smoothness` values.
    public var surfaceSpeeds: [String: Speed]
    public var tracktypeSpeeds: [String: Speed]
    public var smoothnessSpeeds: [String: Speed]
    /// Speed for a way that has no class speed but whose access is allowed.
    public var defaultSpeed: Speed
    /// Whether `maxspeed` replaces the class speed (car), multiplied by `speedReduction`.
    public var usesMaxspeed: Bool
    public var speedReduction: Double
    /// Speed at which a bicycle is pushed against an explicit oneway (bicycle 4 km/h,
    /// OSRM `bike_push_handler`); nil where that is not allowed.
    public var pushingAgainstOnewaySpeed: Speed?
    /// Highest speed any edge gets (bicycle 21 km/h); nil for none.
    public var maxSpeed: Speed?
    /// Rate factors by `service` value (alley 0.5, parking_aisle 0.5, …).
    public var servicePenalties: [String: Double]
    /// Access values that make a `highway=service` way no start point (OSRM
    /// `service_access_tag_blacklist`: car `private`).
    public var serviceAccessBlacklist: Set<String>
    /// Whether narrow or single-lane two-way roads get OSRM's width penalty.
    public var usesWidthPenalty: Bool
    /// `highway` values never routed (car: steps, construction, proposed).
    public var avoidedHighways: Set<String>
    /// Way conditions never routed, OSRM's `avoid` set: `area` (`area=yes`), `reversible`
    /// (`oneway=reversible`), `construction` (`construction=*` other than minor works),
    /// `motorroad` (`motorroad=yes`). `impassable` is always avoided.
    public var avoidedConditions: Set<String>
    /// Barrier values that do *not* block (car), or nil when `blockingBarriers` decides.
    public var barrierWhitelist: Set<String>?
    /// Barrier values that block (foot, bicycle) when `barrierWhitelist` is nil.
    public var blockingBarriers: Set<String>
    /// Time for passing barriers that are penalties, not blocks (car: gate 60 s).
    public var barrierPenalties: [String: Duration]
    /// Time for passing `highway=traffic_signals` (2 s), `stop` (2 s) and `give_way` (1 s).
    public var trafficSignalPenalty: Duration
    public var stopPenalty: Duration
    public var giveWayPenalty: Duration
    /// Whether `type=restriction` relations apply.
    public var usesTurnRestrictions: Bool
    /// Modes in `restriction:<mode>` and `except=` that concern this profile.
    public var restrictionModes: [String]
    /// Turn costs.
    public var turnCosts: TurnCostModel

    // MARK: Presets

    /// OSRM's car profile: 0.8 × maxspeed, class speeds (motorway 90 … service 15 km/h),
    /// private/destination as restricted, steps avoided, turn penalties, restrictions obeyed.
    public static let car = Profile(
        name: "car", mode: .driving, startModes: [.driving],
        accessTagHierarchy: ["motorcar", "motor_vehicle", "vehicle", "access"],
        accessWhitelist: ["yes", "motorcar", "motor_vehicle", "vehicle", "permissive", "designated", "hov"],
        accessBlacklist: ["no", "agricultural", "forestry", "emergency", "psv", "taxi", "share_taxi", "minibus", "bus",
                          "foot", "emergency_vehicle", "restricted", "military", "official", "customers", "private",
                          "delivery", "destination", "permit", "residents"],
        restrictedAccess: ["private", "delivery", "destination", "customers", "permit", "residents", "unknown"],
        restrictedHighways: ["motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link",
                             "secondary", "secondary_link", "tertiary", "tertiary_link", "residential",
                             "living_street", "unclassified", "service", "winter_road", "ice_road"],
        onewayModes: ["motorcar", "motor_vehicle", "vehicle"],
        obeysGeneralOneway: true,
        highwaySpeeds: kmh(["motorway": 90, "motorway_link": 45, "trunk": 85, "trunk_link": 40, "primary": 65,
                        "primary_link": 30, "secondary": 55, "secondary_link": 25, "tertiary": 40,
                        "tertiary_link": 20, "unclassified": 25, "residential": 25, "living_street": 10,
                        "service": 15, "winter_road": 20, "ice_road": 15]),
        pushingSpeeds: [:],
        routeSpeeds: kmh(["ferry": 5, "shuttle_train": 10]),
        surfaceSpeeds: kmh(["cement": 80, "compacted": 80, "fine_gravel": 80, "paving_stones": 60, "metal": 60,
                        "bricks": 60, "grass": 40, "wood": 40, "sett": 40, "grass_paver": 40, "gravel": 40,
                        "unpaved": 40, "ground": 40, "dirt": 40, "pebblestone": 40, "tartan": 40,
                        "cobblestone": 30, "clay": 30, "earth": 20, "stone": 20, "rocky": 20, "sand": 20,
                        "laterite": 15, "mud": 10, "ice": 20, "snow": 30]),
        tracktypeSpeeds: kmh(["grade1": 60, "grade2": 40, "grade3": 30, "grade4": 25, "grade5": 20]),
        smoothnessSpeeds: kmh(["intermediate": 80, "bad": 40, "very_bad": 20, "horrible": 10, "very_horrible": 5,
                               "impassable": 0]),
        defaultSpeed: .kilometersPerHour(10), usesMaxspeed: true, speedReduction: 0.8, pushingAgainstOnewaySpeed: nil, maxSpeed: nil,
        servicePenalties: ["alley": 0.5, "parking": 0.5, "parking_aisle": 0.5, "driveway": 0.5,
                           "drive-through": 0.5, "drive-thru": 0.5],
        serviceAccessBlacklist: ["private"],
        usesWidthPenalty: true,
        avoidedHighways: ["steps", "construction", "proposed"],
        avoidedConditions: ["area", "reversible", "construction"],
        barrierWhitelist: ["cattle_grid", "border_control", "toll_booth", "sally_port", "no", "entrance",
                           "height_restrictor", "arch"],
        blockingBarriers: [],
        barrierPenalties: ["gate": .seconds(60), "lift_gate": .seconds(60)],
        trafficSignalPenalty: .seconds(2), stopPenalty: .seconds(2), giveWayPenalty: .seconds(1),
        usesTurnRestrictions: true,
        restrictionModes: ["motorcar", "motor_vehicle", "vehicle"],
        turnCosts: TurnCostModel(turnPenalty: .seconds(7.5), turnBias: 1.075, oncomingTurnPenalty: .seconds(2), uTurnPenalty: .seconds(20))
    )

    /// OSRM's foot profile: 5 km/h on footways, paths, steps and ordinary streets, `oneway`
    /// ignored except `oneway:foot`, no turn restrictions.
    public static let foot: Profile = {
        let walk = 5.0   // km/h
        var speeds: [String: Double] = [:]
        for h in ["primary", "primary_link", "secondary", "secondary_link", "tertiary", "tertiary_link",
                  "unclassified", "residential", "living_street", "service", "track", "path", "steps",
                  "pedestrian", "platform", "footway", "pier"] { speeds[h] = walk }
        return Profile(
            name: "foot", mode: .walking, startModes: [.walking],
            accessTagHierarchy: ["foot", "access"],
            accessWhitelist: ["yes", "foot", "permissive", "designated"],
            accessBlacklist: ["no", "agricultural", "forestry", "private", "delivery", "use_sidepath"],
            restrictedAccess: [], restrictedHighways: [],
            onewayModes: ["foot"], obeysGeneralOneway: false,
            highwaySpeeds: kmh(speeds), pushingSpeeds: [:], routeSpeeds: kmh(["ferry": 5]),
            surfaceSpeeds: kmh(["fine_gravel": walk * 0.75, "gravel": walk * 0.75, "pebblestone": walk * 0.75,
                                "mud": walk * 0.5, "sand": walk * 0.5]),
            tracktypeSpeeds: [:], smoothnessSpeeds: [:],
            defaultSpeed: .kilometersPerHour(walk), usesMaxspeed: false, speedReduction: 1, pushingAgainstOnewaySpeed: nil, maxSpeed: nil,
            servicePenalties: [:], serviceAccessBlacklist: [], usesWidthPenalty: false,
            avoidedHighways: ["proposed"],
            avoidedConditions: ["motorroad"],
            barrierWhitelist: nil, blockingBarriers: ["yes", "wall", "fence"], barrierPenalties: [:],
            trafficSignalPenalty: .seconds(2), stopPenalty: .zero, giveWayPenalty: .zero,
            usesTurnRestrictions: false, restrictionModes: ["foot"],
            turnCosts: TurnCostModel(turnPenalty: .zero, turnBias: 1, oncomingTurnPenalty: .zero, uTurnPenalty: .seconds(2))
        )
    }()

    /// OSRM's bicycle profile, simplified: 15 km/h on roads and cycleways (track 12, path 13),
    /// bicycles pushed at 4 km/h on footways and pedestrian streets (steps 2 km/h),
    /// `oneway:bicycle` and `cycleway=opposite*` honoured, turn penalty 6 s.
    public static let bicycle: Profile = {
        let cruise = 15.0   // km/h
        var speeds: [String: Double] = [:]
        for h in ["cycleway", "primary", "primary_link", "secondary", "secondary_link", "tertiary", "tertiary_link",
                  "residential", "unclassified", "living_street", "service"] { speeds[h] = cruise }
        speeds["track"] = 12
        speeds["path"] = 13
        return Profile(
            name: "bicycle", mode: .cycling, startModes: [.cycling, .pushingBike],
            accessTagHierarchy: ["bicycle", "vehicle", "access"],
            accessWhitelist: ["yes", "permissive", "designated"],
            accessBlacklist: ["no", "private", "agricultural", "forestry", "delivery", "use_sidepath"],
            restrictedAccess: [], restrictedHighways: [],
            onewayModes: ["bicycle"], obeysGeneralOneway: true,
            highwaySpeeds: kmh(speeds),
            pushingSpeeds: kmh(["footway": 4, "pedestrian": 4, "steps": 2, "platform": 4, "pier": 4]),
            routeSpeeds: kmh(["ferry": 5]),
            surfaceSpeeds: kmh(["wood": 10, "metal": 10, "cobblestone:flattened": 10, "paving_stones": 10,
                            "compacted": 10, "cobblestone": 7, "unpaved": 6, "fine_gravel": 10, "gravel": 6,
                            "pebblestone": 6, "grass_paver": 6, "ground": 10, "dirt": 8, "earth": 6,
                                "laterite": 5, "grass": 6, "mud": 3, "sand": 3, "woodchips": 3, "sett": 9]),
            tracktypeSpeeds: [:], smoothnessSpeeds: [:],
            defaultSpeed: .kilometersPerHour(cruise), usesMaxspeed: false, speedReduction: 1,
            pushingAgainstOnewaySpeed: .kilometersPerHour(4), maxSpeed: .kilometersPerHour(21),
            servicePenalties: ["alley": 0.5], serviceAccessBlacklist: [], usesWidthPenalty: false,
            avoidedHighways: ["construction", "proposed"],
            avoidedConditions: ["construction", "motorroad"],
            barrierWhitelist: nil, blockingBarriers: ["yes", "wall", "fence"], barrierPenalties: [:],
            trafficSignalPenalty: .seconds(2), stopPenalty: .zero, giveWayPenalty: .zero,
            usesTurnRestrictions: true, restrictionModes: ["bicycle"],
            turnCosts: TurnCostModel(turnPenalty: .seconds(6), turnBias: 1.4, oncomingTurnPenalty: .zero, uTurnPenalty: .seconds(20))
        )
    }()

    /// A table of OSRM's km/h numbers as speeds, so the presets read like the Lua profiles.
    private static func kmh(_ table: [String: Double]) -> [String: Speed] { table.mapValues(Speed.kilometersPerHour) }

    /// The preset named `car`, `foot`, `bicycle` (or `bike`), else nil.
    public static func named(_ name: String) -> Profile? {
        switch name.lowercased() {
        case "car", "driving": .car
        case "foot", "walking": .foot
        case "bike", "bicycle", "cycling": .bicycle
        default: nil
        }
    }

    // MARK: Ways

    /// Evaluates a way's tags; nil when the way is not routable in either direction.
    /// - Complexity: O(number of tags consulted), a few dictionary look-ups.
    public func attributes(ofWay tags: [String: String]) -> WayAttributes? {
        let highway = tags["highway"]
        let route = tags["route"]
        let routeSpeed = route.flatMap { routeSpeeds[$0] }
        guard highway != nil || routeSpeed != nil else { return nil }
        if let highway, avoidedHighways.contains(highway) { return nil }
        if tags["impassable"] == "yes" || tags["status"] == "impassable"
            || tags["proposed"] != nil && (highway == nil || highway == "proposed") {
            return nil
        }
        if avoidedConditions.contains("area"), tags["area"] == "yes" { return nil }
        if avoidedConditions.contains("reversible"), tags["oneway"] == "reversible" { return nil }
        if avoidedConditions.contains("motorroad"), tags["motorroad"] == "yes" { return nil }
        if avoidedConditions.contains("construction"), let c = tags["construction"], !["no", "widening", "minor"].contains(c) {
            return nil
        }
        if name == "car", tags["service"] == "emergency_access" { return nil }

        // Access per direction (OSRM Tags.get_forward_backward_by_set over the hierarchy).
        let (fAccess, bAccess) = forwardBackward(tags, keys: accessTagHierarchy)
        let forwardAccess = fAccess.map(resolveAccess), backwardAccess = bAccess.map(resolveAccess)
        let canRestrict = highway.map { restrictedHighways.contains($0) } ?? false
        let fRestricted = canRestrict && forwardAccess.map { restrictedAccess.contains($0) } == true
        let bRestricted = canRestrict && backwardAccess.map { restrictedAccess.contains($0) } == true
        var fAllowed = !(forwardAccess.map { accessBlacklist.contains($0) } == true && !fRestricted)
        var bAllowed = !(backwardAccess.map { accessBlacklist.contains($0) } == true && !bRestricted)
        guard fAllowed || bAllowed else { return nil }

        // Oneway.
        var onewayValue: String?
        for m in onewayModes { if let v = tags["oneway:\(m)"] { onewayValue = v; break } }
        if onewayValue == nil, obeysGeneralOneway { onewayValue = tags["oneway"] }
        let junction = tags["junction"]
        // Directions closed by an explicit oneway (not by access, not implied), where a bicycle may be pushed.
        var pushForward = false, pushBackward = false
        if onewayValue == "-1" {
            pushForward = fAllowed
            fAllowed = false
        } else if onewayValue == "yes" || onewayValue == "1" || onewayValue == "true" {
            pushBackward = bAllowed
            bAllowed = false
        } else if obeysGeneralOneway, onewayValue != "no",
                  highway == "motorway" || junction == "roundabout" || junction == "circular" {
            bAllowed = false
        }
        // Bicycles may ride against a oneway where a contraflow cycleway exists.
        if mode == .cycling, !bAllowed, tags["oneway:bicycle"] == nil,
           let cw = tags["cycleway"] ?? tags["cycleway:left"] ?? tags["cycleway:right"], cw.hasPrefix("opposite") {
            bAllowed = backwardAccess.map { accessBlacklist.contains($0) } != true
        }
        guard fAllowed || bAllowed else { return nil }

        // Speed and mode, in m/s: each is a km/h number ÷ 3.6, as the builder divided before
        // speeds had a type, so edge durations stay bit for bit what they were.
        var fSpeed: Double, bSpeed: Double
        var edgeMode = mode
        var roadClass = RoadClass(osmValue: highway ?? "other")
        if let routeSpeed = routeSpeed?.metersPerSecond, let route {
            fSpeed = routeSpeed; bSpeed = routeSpeed
            edgeMode = .ferry
            roadClass = RoadClass(osmValue: route)
            fAllowed = fAllowed || bAllowed; bAllowed = fAllowed
        } else if let highway, let s = highwaySpeeds[highway]?.metersPerSecond {
            fSpeed = s; bSpeed = s
        } else if let highway, let s = pushingSpeeds[highway]?.metersPerSecond {
            // Pushing unless the bicycle is explicitly welcome (bicycle=yes on a footway).
            if let a = tags["bicycle"], accessWhitelist.contains(a) {
                fSpeed = defaultSpeed.metersPerSecond; bSpeed = defaultSpeed.metersPerSecond
            } else {
                fSpeed = s; bSpeed = s
                edgeMode = .pushingBike
            }
        } else {
            // No class speed: allowed only where access says so explicitly.
            func fallback(_ a: String?) -> Double? {
                guard let a else { return nil }
                return accessBlacklist.contains(a) ? nil : defaultSpeed.metersPerSecond
            }
            guard let f = fallback(forwardAccess) ?? fallback(backwardAccess) else { return nil }
            fSpeed = fallback(forwardAccess) ?? f
            bSpeed = fallback(backwardAccess) ?? f
            if forwardAccess == nil { fAllowed = false }
            if backwardAccess == nil { bAllowed = false }
            guard fAllowed || bAllowed else { return nil }
        }

        if usesMaxspeed, edgeMode != .ferry {
            let (fm, bm) = forwardBackward(tags, keys: ["maxspeed:advisory", "maxspeed", "source:maxspeed", "maxspeed:type"])
            if let v = fm.flatMap(Profile.maxspeedKilometersPerHour), v > 0 { fSpeed = v * speedReduction / 3.6 }
            if let v = bm.flatMap(Profile.maxspeedKilometersPerHour), v > 0 { bSpeed = v * speedReduction / 3.6 }
        }
        if edgeMode != .ferry {
            for (key, table) in [("surface", surfaceSpeeds), ("tracktype", tracktypeSpeeds), ("smoothness", smoothnessSpeeds)] {
                if let v = tags[key], let cap = table[v]?.metersPerSecond {
                    fSpeed = min(fSpeed, cap); bSpeed = min(bSpeed, cap)
                }
            }
        }
        if let maxSpeed = maxSpeed?.metersPerSecond { fSpeed = min(fSpeed, maxSpeed); bSpeed = min(bSpeed, maxSpeed) }
        if fSpeed <= 0 { fAllowed = false }
        if bSpeed <= 0 { bAllowed = false }
        guard fAllowed || bAllowed else { return nil }
        let pushSpeed: Speed? = pushingAgainstOnewaySpeed.flatMap { s in
            tags["foot"] != "no" && edgeMode != .ferry ? s : nil
        }

        // Routability penalties (OSRM WayHandlers.penalties).
        var penalty = 1.0
        if let s = tags["service"], let p = servicePenalties[s] { penalty = min(penalty, p) }
        let twoWay = fAllowed && bAllowed
        if usesWidthPenalty, twoWay {
            if tags["lane_markings"] == "no" { penalty = min(penalty, 0.75) }
            if let w = tags["width"].flatMap(Profile.leadingNumber) {
                if w <= 3 { penalty = min(penalty, 0.5) } else if w < 4 { penalty = min(penalty, 0.6) }
                else if w < 5 { penalty = min(penalty, 0.75) } else if w < 6 { penalty = min(penalty, 0.8) }
            }
            if let lanes = tags["lanes"].flatMap(Profile.leadingNumber), lanes <= 1 { penalty = min(penalty, 0.5) }
        }
        if tags["side_road"] == "yes" || tags["side_road"] == "rotary" { penalty = min(penalty, 0.8) }

        let name = tags["name"] ?? tags["ref"] ?? ""
        func pushed(_ allowedByPush: Bool) -> DirectionAttributes? {
            guard allowedByPush, let pushSpeed else { return nil }
            return DirectionAttributes(speed: pushSpeed, rateFactor: 1, mode: .pushingBike, isRestricted: false)
        }
        let forward = fAllowed ? DirectionAttributes(speed: .metersPerSecond(fSpeed), rateFactor: penalty, mode: edgeMode, isRestricted: fRestricted)
            : pushed(pushForward)
        let backward = bAllowed ? DirectionAttributes(speed: .metersPerSecond(bSpeed), rateFactor: penalty, mode: edgeMode, isRestricted: bRestricted)
            : pushed(pushBackward)
        // OSRM WayHandlers.startpoint: either direction in a start mode, and no blacklisted service road.
        let isStartPoint = [forward, backward].contains { $0.map { startModes.contains($0.mode) } ?? false }
            && !(highway == "service" && forwardAccess.map(serviceAccessBlacklist.contains) == true)
        return WayAttributes(
            forward: forward, backward: backward, roadClass: roadClass, name: name,
            isRoundabout: junction == "roundabout" || junction == "circular", isStartPoint: isStartPoint
        )
    }

    /// For each key in order, `key:forward` / `key:backward` falling back to `key`
    /// (OSRM `Tags.get_forward_backward_by_set`).
    private func forwardBackward(_ tags: [String: String], keys: [String]) -> (String?, String?) {
        var f: String?, b: String?
        for key in keys {
            if f == nil { f = tags[key + ":forward"] }
            if b == nil { b = tags[key + ":backward"] }
            if f == nil || b == nil, let common = tags[key] {
                f = f ?? common
                b = b ?? common
            }
            if f != nil, b != nil { break }
        }
        return (f, b)
    }

    /// For `a;b` lists, the most permissive value (whitelist > restricted > blacklist > other),
    /// as OSRM `resolve_access`.
    private func resolveAccess(_ value: String) -> String {
        guard value.contains(";") else { return value }
        var best: String?, bestRank = -1
        for part in value.split(separator: ";") {
            let p = String(part.trimmingSpaces)
            let rank = accessWhitelist.contains(p) ? 3 : restrictedAccess.contains(p) ? 2 : accessBlacklist.contains(p) ? 1 : 0
            if rank > bestRank { best = p; bestRank = rank }
        }
        return best ?? value
    }

    // MARK: Nodes

    /// Evaluates a node's tags: barriers (blocking unless whitelisted or a penalty gate),
    /// access on the node, traffic signals, stop and give-way signs.
    public func attributes(ofNode tags: [String: String]) -> NodeAttributes {
        guard !tags.isEmpty else { return .plain }
        var result = NodeAttributes.plain
        var access: String?
        for key in accessTagHierarchy { if let v = tags[key] { access = resolveAccess(v); break } }
        if let access {
            if accessBlacklist.contains(access), !restrictedAccess.contains(access) { result.isBarrier = true }
        } else if let barrier = tags["barrier"] {
            let rising = tags["bollard"] == "rising"
            let flatKerb = tags["kerb"] == "lowered" || tags["kerb"] == "flush"
            let crossingKerb = barrier == "kerb" && tags["highway"] == "crossing"
            let audible = barrier == "fence" && (tags["sensory"] == "audible" || tags["sensory"] == "audio")
            if let whitelist = barrierWhitelist {
                if let p = barrierPenalties[barrier] {
                    result.penalty += p
                } else if !whitelist.contains(barrier), !rising, !flatKerb, !crossingKerb, !audible {
                    result.isBarrier = true
                }
            } else if blockingBarriers.contains(barrier), !rising, !audible {
                result.isBarrier = true
            }
        }
        switch tags["highway"] {
        case "traffic_signals": result.penalty += trafficSignalPenalty
        case "stop": result.penalty += stopPenalty
        case "give_way": result.penalty += giveWayPenalty
        default: break
        }
        return result
    }

    // MARK: Tag parsing

    /// Zone defaults for `maxspeed=XX:zone` (OSRM `maxspeed_table_default`) and a few
    /// country-specific values from OSRM's `maxspeed_table`, in km/h.
    static let maxspeedZones: [String: Double] = [
        "urban": 50, "rural": 90, "trunk": 110, "motorway": 130,
    ]
    static let maxspeedTable: [String: Double] = [
        "at:rural": 100, "at:trunk": 100, "be:motorway": 120, "ch:rural": 80, "ch:trunk": 100,
        "ch:motorway": 120, "de:living_street": 7, "de:rural": 100, "de:motorway": 120, "fr:rural": 80,
        "gb:nsl_single": 60 * 1.609, "gb:nsl_dual": 70 * 1.609, "uk:nsl_single": 60 * 1.609,
        "uk:nsl_dual": 70 * 1.609, "ru:living_street": 20, "ru:urban": 60, "ru:rural": 90,
        "it:rural": 90, "it:motorway": 130, "es:rural": 90, "es:trunk": 100, "es:motorway": 120,
        "none": 140,
    ]

    /// Parses an OSM `maxspeed` value: `"50"` (km/h), `"30 mph"`, `"10 knots"`,
    /// `"FR:urban"` (zone default), `"none"`. Returns nil for unparseable values and for
    /// absurd ones (≤ 0 or > 300 km/h), which callers count and ignore.
    public static func parseMaxspeed(_ text: String) -> Speed? {
        maxspeedKilometersPerHour(text).map(Speed.kilometersPerHour)
    }

    /// `parseMaxspeed(_:)` as the km/h number, which the way evaluation scales by
    /// `speedReduction` before converting (OSRM's order of operations).
    static func maxspeedKilometersPerHour(_ text: String) -> Double? {
        let lowered = text.lowercased()
        if let n = leadingNumber(lowered) {
            var kmh = n
            if lowered.contains("mph") || lowered.contains("mp/h") { kmh = n * 1.609 }
            else if lowered.contains("knot") { kmh = n * 1.852 }
            return kmh > 0 && kmh <= 300 ? kmh : nil
        }
        if let v = maxspeedTable[lowered] { return v }
        if let colon = lowered.firstIndex(of: ":") {
            let zone = lowered[lowered.index(after: colon)...]
            if let v = maxspeedZones[String(zone)] { return v }
        }
        return nil
    }

    /// The decimal number at the start of `text` (after spaces), or nil.
    static func leadingNumber(_ text: String) -> Double? {
        var digits = ""
        var seenDot = false
        for ch in text.drop(while: { $0 == " " }) {
            if ch.isASCII, ch.isNumber { digits.append(ch) }
            else if ch == ".", !seenDot, !digits.isEmpty { seenDot = true; digits.append(ch) }
            else { break }
        }
        if digits.hasSuffix(".") { digits.removeLast() }
        return digits.isEmpty ? nil : Double(digits)
    }
}
