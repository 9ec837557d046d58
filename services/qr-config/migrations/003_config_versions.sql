-- A configuration's version names its sale: a single-use configuration is paid once per
-- version, and a success clears only the version it paid. Versions must therefore never
-- repeat for a token, also after the configuration was removed and set again; the
-- counter lives on the code, which outlives its configurations.
alter table codes add column config_version bigint not null default 0;
update codes c set config_version = f.version from configs f where f.token = c.token;
