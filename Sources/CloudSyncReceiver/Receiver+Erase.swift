import Foundation
import Hummingbird
import Logging

extension Receiver {
    /// `DELETE /api/v1/users/NAME` (an administrator's token, `AccessMiddleware`): every row of that
    /// user, in every table, in one transaction, and (SQLite) their steps file, then their store (the
    /// files of `PatientStoreFolder`, after the transaction); the answer says how
    /// many rows of each table went. The other users' rows are untouched. The log keeps that it
    /// happened and how many rows, never what they held.
    func addEraseRoute(_ router: Router<ReceiverContext>) {
        router.delete("/api/v1/users/:name") { _, context in
            let name = try context.parameters.require("name")
            guard ReceiverUsers.isName(name) else {
                return JSONResponse.make(.badRequest, ["detail": "a user name holds letters, digits, '.', '_' and '-' only"])
            }
            var erased = try await storage.erase(owner: name)
            // Then the patient's store (`serve --db FILE`), whose tables are named `store.TABLE`.
            erased.merge(try await stores.erase(owner: name)) { $0 + $1 }
            let total = erased.values.reduce(0, +)
            logger.notice("erased the user \(name): \(total) rows, at the request of \(context.user)")
            await storage.log(owner: context.user, path: "/api/v1/users/\(name)", status: 200, count: total)
            return JSONResponse.make(.ok, ["user": name, "erased": erased, "total": total])
        }
    }
}
