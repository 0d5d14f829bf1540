/// The unit rules of `healthmetric.md`: normalise by the unit written in the file, whatever the locale.
/// In the model so that every reader (export.xml, Health Auto Export's JSON) converts by one table.
public struct UnitConversion: Sendable, Equatable {
    /// canonical = written × scale + offset
    public var scale: Double
    public var offset: Double
    /// The canonical unit; nil keeps the unit as written.
    public var canonicalUnit: StaticString?
    /// False for units outside the table: kept as written and reported by `inspect`.
    public var isRecognised: Bool

    public var isIdentity: Bool { scale == 1 && offset == 0 }

    public func apply(_ value: Double) -> Double {
        isIdentity ? value : NumberFormatting.roundedAfterConversion(value * scale + offset)
    }

    public static func == (a: UnitConversion, b: UnitConversion) -> Bool {
        a.scale == b.scale && a.offset == b.offset && a.isRecognised == b.isRecognised
            && a.canonicalUnit?.description == b.canonicalUnit?.description
    }

    package static func to(_ unit: StaticString, _ scale: Double = 1, offset: Double = 0) -> UnitConversion {
        UnitConversion(scale: scale, offset: offset, canonicalUnit: unit, isRecognised: true)
    }
    package static let keep = UnitConversion(scale: 1, offset: 0, canonicalUnit: nil, isRecognised: true)
    package static let unrecognised = UnitConversion(scale: 1, offset: 0, canonicalUnit: nil, isRecognised: false)
}

public enum UnitTable {
    /// The conversion for a value written in `unit` on a record of type `type`.
    public static func conversion(unit: ByteText, type: ByteText) -> UnitConversion {
        let isHeartRate = type.contains("HeartRate")
        let isDistance = type.contains("Distance")
        return conversion(unit: unit.string, isHeartRate: isHeartRate, isDistance: isDistance)
    }

    public static func conversion(unit: String, isHeartRate: Bool, isDistance: Bool) -> UnitConversion {
        if let metres = metresPerUnit[unit] {
            return isDistance ? .to("km", metres / 1000) : .to("cm", metres * 100)
        }
        switch unit {
        case "count": return .to("count")
        case "count/min": return isHeartRate ? .to("bpm") : .to("count/min")
        case "count/s": return isHeartRate ? .to("bpm", 60) : .to("count/min", 60)
        case "kcal", "Cal": return .to("kcal")
        case "kJ": return .to("kcal", 1 / 4.184)
        case "cal": return .to("kcal", 1 / 1000)
        case "J": return .to("kcal", 1 / 4184)
        case "kg": return .to("kg")
        case "g": return .to("kg", 0.001)
        case "lb": return .to("kg", 0.45359237)
        case "oz": return .to("kg", 0.028349523125)
        case "st": return .to("kg", 6.35029318)
        case "degC": return .to("degC")
        case "degF": return .to("degC", 5.0 / 9.0, offset: -32.0 * 5.0 / 9.0)
        case "K": return .to("degC", 1, offset: -273.15)
        case "%": return .to("%", 100)
        case "mL/min·kg", "mL/(kg·min)", "mL/min&#183;kg": return .to("ml/kg/min")
        case "s": return .to("min", 1.0 / 60.0)
        case "min": return .to("min")
        case "hr": return .to("min", 60)
        case "d": return .to("min", 1440)
        case "ms": return .to("ms")
        case "km/hr": return .to("km/hr")
        case "m/s": return .to("km/hr", 3.6)
        case "mi/hr": return .to("km/hr", 1.609344)
        case "ft/s": return .to("km/hr", 1.09728)   // Health Auto Export writes stair speeds so
        case "mL": return .to("mL")
        case "L": return .to("mL", 1000)
        case "fl_oz_us": return .to("mL", 29.5735295625)
        case "cup_us": return .to("mL", 236.5882365)
        case "mg/dL": return .to("mg/dL")
        case "mmol<180.1558800000541>/L": return .to("mg/dL", 18.01558800000541)
        case "mmHg", "dBASPL", "dBHL": return .keep
        default: return .unrecognised
        }
    }

    package static let metresPerUnit: [String: Double] = [
        "km": 1000, "m": 1, "cm": 0.01, "mm": 0.001,
        "mi": 1609.344, "ft": 0.3048, "in": 0.0254, "yd": 0.9144,
    ]
}
