/* "SECTION.KEY" naming a real parameter of the config's system, contact or
 * friction law (config.h): what an analysis varies along (a continuation,
 * the PC map's geometry). */
#include <stdio.h>
#include <string.h>

#include "config.h"

const nsdyn_param_decl *nsd_config_real_param_decl(const nsd_config *cfg, const char *section,
                                                   const char *key) {
    const nsd_section *sec = !strcmp(section, "system")     ? &cfg->system
                             : !strcmp(section, "contact")  ? &cfg->contact
                             : !strcmp(section, "friction") ? &cfg->friction
                                                            : NULL;
    if (!sec || !sec->plugin) return NULL;
    const nsdyn_plugin_info *info = sec->plugin->info;
    for (size_t i = 0; i < info->n_params; ++i)
        if (!strcmp(info->params[i].name, key) && info->params[i].type == NSDYN_PARAM_REAL)
            return &info->params[i];
    return NULL;
}

int nsd_config_real_param(const nsd_config *cfg, const char *dotted, char *section,
                          size_t section_len, char *key, size_t key_len) {
    const char *dot = dotted ? strchr(dotted, '.') : NULL;
    if (!dot || (size_t)(dot - dotted) >= section_len || strlen(dot + 1) >= key_len) return -1;
    snprintf(section, section_len, "%.*s", (int)(dot - dotted), dotted);
    snprintf(key, key_len, "%s", dot + 1);
    return nsd_config_real_param_decl(cfg, section, key) ? 0 : -1;
}
