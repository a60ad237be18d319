import MapStyle
import Platform

/// The values of a feature-dependent property or filter that reads no more of a feature than a
/// few of its properties named by literals (MapStyle's `propertyNames`: `["get", "class"]`),
/// kept by those properties' values: the features of a layer that agree in them (a tile's
/// roads of one class) are evaluated once at the memo's zoom. Only primitive values key it; a
/// feature with another value there (an array or object) is evaluated as it is. A feature
/// with a property set number (``RenderFeature/propertySet``) finds its value by that number,
/// without looking its properties up.
final class PropertyMemo {
    /// The zoom the values were evaluated at.
    let zoom: Double
    private let names: [String]
    private var held: [Key: ExpressionValue] = [:]
    /// The values by property set number, direct-mapped: slot `set % slots` holds the set
    /// number last kept there (-1: none) and its value, so a number is found by one index and
    /// compare instead of hashed; a set landing on a slot another holds replaces it. A tile's
    /// sets of one layer are consecutive numbers, so those of the few tiles in view seldom
    /// meet. Grown by doubling (from ``minimumSetSlots`` to ``maximumSetSlots``) when a set
    /// replaces another, so a memo holds about as many slots as the sets it is asked for.
    private var slots: [SetSlot] = []

    /// A slot of the values by property set number.
    private struct SetSlot {
        var set: Int
        var value: ExpressionValue
        static let empty = SetSlot(set: -1, value: .null)
    }

    /// At most this many property names key a memo; at most this many values are kept (a
    /// property keyed by names, say, is then evaluated per feature, as without a memo).
    static let maximumNames = 3, capacity = 1024
    /// The fewest and most slots of the values by property set number (powers of two).
    static let minimumSetSlots = 64, maximumSetSlots = 1024

    /// A memo for an expression reading the properties `names`; nil when it reads more of the
    /// feature (`names` nil) or more than ``maximumNames`` properties.
    init?(names: [String]?, zoom: Double) {
        guard let names, names.count <= Self.maximumNames else { return nil }
        self.names = names
        self.zoom = zoom
    }

    /// The value for `feature`: the one kept for its property set, else the one for its
    /// properties (below), kept for its set.
    @inline(__always)
    func value(_ feature: RenderFeature, evaluate: () -> ExpressionValue) -> ExpressionValue {
        guard let set = feature.propertySet else { return value(feature.expressionFeature.properties, evaluate: evaluate) }
        let found: ExpressionValue? = slots.withUnsafeBufferPointer { slots in
            guard !slots.isEmpty else { return nil }
            let slot = slots[set & (slots.count - 1)]
            return slot.set == set ? slot.value : nil
        }
        if let found { return found }
        let value = value(feature.expressionFeature.properties, evaluate: evaluate)
        keep(value, set: set)
        return value
    }

    /// Keeps `value` for property set `set` (a number ≥ 0), growing the slots when it would
    /// replace another set's.
    private func keep(_ value: ExpressionValue, set: Int) {
        if slots.isEmpty {
            slots = Array(repeating: .empty, count: Self.minimumSetSlots)
        } else if slots[set & (slots.count - 1)].set >= 0, slots.count < Self.maximumSetSlots {
            let old = slots
            slots = Array(repeating: .empty, count: 2 * old.count)
            for slot in old where slot.set >= 0 { slots[slot.set & (slots.count - 1)] = slot }
        }
        slots[set & (slots.count - 1)] = SetSlot(set: set, value: value)
    }

    /// The value for a feature with `properties`: the one kept for features alike in the
    /// memo's properties, else `evaluate()`'s, kept. Inlined, so that a value found kept costs
    /// no copy of what `evaluate` captures (a feature, a filter: their arrays retained).
    @inline(__always)
    private func value(_ properties: [String: ExpressionValue], evaluate: () -> ExpressionValue) -> ExpressionValue {
        var key = Key()
        for i in names.indices {
            guard let part = Part(properties[names[i]]) else { return evaluate() }
            switch i {
            case 0: key.first = part
            case 1: key.second = part
            default: key.third = part
            }
        }
        if let value = held[key] { return value }
        let value = evaluate()
        if held.count < Self.capacity { held[key] = value }
        return value
    }

    private struct Key: Hashable {
        var first = Part.absent, second = Part.absent, third = Part.absent
    }

    /// One property's value as part of a key: numbers by their bits, strings by their UTF-8
    /// bytes (two strings Swift counts equal may differ in their scalars, and so in what an
    /// expression makes of them).
    private enum Part: Hashable {
        case absent, null, boolean(Bool), number(UInt64), string(Bytes)

        init?(_ value: ExpressionValue?) {
            switch value {
            case nil: self = .absent
            case .null?: self = .null
            case .boolean(let b)?: self = .boolean(b)
            case .number(let n)?: self = .number(n.bitPattern)
            case .string(let s)?: self = .string(Bytes(text: s))
            default: return nil
            }
        }
    }

    private struct Bytes: Hashable {
        var text: String
        static func == (a: Bytes, b: Bytes) -> Bool {
            var (x, y) = (a.text, b.text)
            return x.withUTF8 { p in y.withUTF8 { q in p.count == q.count && (p.isEmpty || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0) } }
        }
        func hash(into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}
