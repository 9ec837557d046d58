export * from './address-guard.ts';
export * from './partner-directory.ts';
export * from './partner-http.ts';
export * from './partner-url.ts';
export * from './settings.ts';
