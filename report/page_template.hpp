// The page's HTML, script and style (report/page.html), built in by
// report/embed.cmake; page_html puts the data where it says /*TFSEM_DATA*/null.
#pragma once

namespace tfsem::report {

extern const char kPageTemplate[];

}  // namespace tfsem::report
