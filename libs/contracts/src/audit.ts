// The audit log as the API answers it: schemas.
export {};
