/// The `category` metadata of category records (`healthmetric.md`).
public enum CategoryRules {
    /// Writes the category name for `value` on a record of `type` into `out`.
    ///
    /// Sleep values become the names the CloudCare backend reads (`inBed`, `asleep`, `awake`, `core`,
    /// `deep`, `rem`). Others lose `HKCategoryValue` and the type's own name and start lower case
    /// (`HKCategoryValueAppleStandHourStood` → `stood`); a numeric value stays as written, except
    /// sleep's, which iOS 8 wrote as HealthKit's raw values (`0` in bed … `5` REM).
    public static func appendCategory(value: ByteText, type: ByteText, to out: inout ByteBuffer) {
        let prefix: StaticString = "HKCategoryValue"
        guard value.hasPrefix(prefix) else {
            if value.count == 1, type.equals("HKCategoryTypeIdentifierSleepAnalysis"), let name = sleepName(raw: value[0]) {
                out.append(name)
            } else {
                out.append(value)
            }
            return
        }
        var rest = value.slice(prefix.utf8CodeUnitCount..<value.count)
        if type.equals("HKCategoryTypeIdentifierSleepAnalysis") {
            let sleep = rest.hasPrefix("SleepAnalysis") ? rest.slice(13..<rest.count) : rest
            if let name = sleepName(sleep) {
                out.append(name)
                return
            }
        }
        let typePrefix: StaticString = "HKCategoryTypeIdentifier"
        if type.hasPrefix(typePrefix) {
            let ownName = type.slice(typePrefix.utf8CodeUnitCount..<type.count)
            if rest.count > ownName.count, ownName.count > 0,
               memcmp(rest.baseAddress!, ownName.baseAddress!, ownName.count) == 0 {
                rest = rest.slice(ownName.count..<rest.count)
            }
        }
        appendLowerCamel(rest, to: &out)
    }

    static func sleepName(_ value: ByteText) -> StaticString? {
        if value.equals("InBed") { return "inBed" }
        if value.equals("Asleep") || value.equals("AsleepUnspecified") { return "asleep" }
        if value.equals("Awake") { return "awake" }
        if value.equals("AsleepCore") { return "core" }
        if value.equals("AsleepDeep") { return "deep" }
        if value.equals("AsleepREM") { return "rem" }
        return nil
    }

    /// `HKCategoryValueSleepAnalysis`'s raw values, as iOS 8 exports write them.
    static func sleepName(raw digit: UInt8) -> StaticString? {
        switch digit {
        case UInt8(ascii: "0"): return "inBed"
        case UInt8(ascii: "1"): return "asleep"
        case UInt8(ascii: "2"): return "awake"
        case UInt8(ascii: "3"): return "core"
        case UInt8(ascii: "4"): return "deep"
        case UInt8(ascii: "5"): return "rem"
        default: return nil
        }
    }

    /// `Stood` → `stood`; a leading acronym is lowered whole (`REMSleep` → `remSleep`).
    package static func appendLowerCamel(_ text: ByteText, to out: inout ByteBuffer) {
        var upperRun = 0
        while upperRun < text.count, text[upperRun] >= 65, text[upperRun] <= 90 { upperRun += 1 }
        // In "REMSleep" the last capital of the run starts the next word.
        let lowered = upperRun > 1 && upperRun < text.count ? upperRun - 1 : upperRun
        for i in 0..<text.count {
            let byte = text[i]
            out.append(i < lowered && byte >= 65 && byte <= 90 ? byte + 32 : byte)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
