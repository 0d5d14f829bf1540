public import CloudSyncModel
/// Health Auto Export's unit names, resolved through the model's one unit table (`UnitTable`): the
/// app spells some units its own way (`ml/(kg·min)`, `bpm`, `mmol/L`, `steps`, `步`), and writes a
/// percentage as a percentage (97), where export.xml writes a fraction (0.97).
public enum HealthAutoExportUnits {
    public struct Resolved {
        public var conversion: UnitConversion
        /// The unit the metric gets: the canonical one, or the written one when the table has none.
        public var canonical: ByteText
        public var written: ByteText
        public var isRecognised: Bool { conversion.isRecognised }
    }

    /// `written` as the table names it.
    static func tableName(_ written: String) -> String {
        switch written {
        case "ml/(kg·min)", "mL/(kg·min)", "ml/kg/min": return "mL/(kg·min)"
        case "bpm", "beats/min": return "count/min"
        case "spm", "steps/min": return "count/min"
        case "mmol/L": return "mmol<180.1558800000541>/L"
        case "steps", "步", "count": return "count"
        case "kcal/hr·kg": return "kcal/hr·kg"
        default: return written
        }
    }

    /// The conversion of a value written in `units` on a metric of HealthKit type `type`.
    public static func conversion(units: String, type: String) -> UnitConversion {
        if units == "%" { return .to("%") }
        return UnitTable.conversion(unit: tableName(units), isHeartRate: type.contains("HeartRate"), isDistance: type.contains("Distance"))
    }

    /// A duration in `units` as minutes, for the category types that the export gives as durations.
    public static func minutes(units: String) -> UnitConversion {
        let conversion = UnitTable.conversion(unit: units, isHeartRate: false, isDistance: false)
        return conversion.canonicalUnit?.description == "min" ? conversion : .to("min")
    }
}
