/* HTTP response heads (net/http.c, the client's side); see http_check.h. */
#include "http_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return http_fuzz(net_http_parse_response, data, size);
}
