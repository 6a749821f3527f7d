// The types a custom field may register (Strapi 5.54's ALLOWED_TYPES of registries/custom-fields: no media,
// relation, component, dynamic zone or blocks), and the shape of its uid. Apart from ./custom-fields.ts so
// that config.ts validates the CUSTOM_FIELDS setting without loading the project runtime.
export const CUSTOM_FIELD_TYPES = [
  'biginteger', 'boolean', 'date', 'datetime', 'decimal', 'email', 'enumeration', 'float', 'integer', 'json',
  'password', 'richtext', 'string', 'text', 'time', 'uid',
] as const;
export type CustomFieldType = typeof CUSTOM_FIELD_TYPES[number];

/** `plugin::<plugin>.<name>` or `global::<name>`, as Strapi forms a custom field's uid. */
export const CUSTOM_FIELD_UID = /^(?:plugin::[^.\s:]+\.\S+|global::\S+)$/;
