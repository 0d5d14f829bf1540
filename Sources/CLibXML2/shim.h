#ifndef CLOUDSYNC_LIBXML2_SHIM_H
#define CLOUDSYNC_LIBXML2_SHIM_H

#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, whose headers clash with the copy of ICU inside Foundation
 * when both are imported into one Swift module. We never touch the encoding handler structs
 * whose layout this changes (we only pass pointers libxml2 allocated), nor ICU itself. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/// libxml2 reports errors through callbacks whose signature changed between releases
/// (`xmlErrorPtr` in 2.9, `const xmlError *` from 2.12). We read the last error with
/// `xmlCtxtGetLastError` after `xmlParseChunk` fails, so the callback only has to stay quiet:
/// without it libxml2 prints its own messages on stderr.
static void cloudsync_xml_ignore_structured_error(void *user_data, void *error) {
    (void)user_data;
    (void)error;
}

static inline void cloudsync_xml_silence_errors(xmlSAXHandler *handler) {
    handler->serror = (xmlStructuredErrorFunc)cloudsync_xml_ignore_structured_error;
    handler->error = NULL;
    handler->warning = NULL;
    handler->fatalError = NULL;
}

/// Encoding failures bypass the SAX handler: libxml2 prints them through its generic error
/// function ("encoding error : input conversion failed …"). That function is per thread, so the
/// parser thread silences it before parsing; the failure still reaches us as the chunk's status.
static void cloudsync_xml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void cloudsync_xml_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, cloudsync_xml_ignore_generic_error);
}

/// Frees the context and the document libxml2 may have made on its own: in SAX mode it still
/// records entity declarations in a private "SAX compatibility" document (`ctxt->myDoc`), which
/// `xmlFreeParserCtxt` does not free. The DTD never reaches libxml2 (DoctypeStripper), so this is
/// a second line: LeakSanitizer under the fuzzer found the leak when a DTD once got through.
static inline void cloudsync_xml_free_parser(xmlParserCtxtPtr ctxt) {
    if (ctxt == NULL) return;
    if (ctxt->myDoc != NULL) {
        xmlFreeDoc(ctxt->myDoc);
        ctxt->myDoc = NULL;
    }
    xmlFreeParserCtxt(ctxt);
}

static inline int cloudsync_xml_current_line(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->line : 0;
}

static inline int cloudsync_xml_current_column(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->col : 0;
}

#endif
